import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Access } from '../../src/auth/access.ts';
import {
  GOOD_PASSWORD,
  bootstrapKey,
  call,
  createKey,
  createProject,
  expectStatus,
  readReply,
  revokeKey,
  type Base,
  type Reply,
} from '../helpers/auth.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { nativeSpan } from '../helpers/spans.ts';

/**
 * Every route × every kind of caller, generated from `app.routeList`: a route added without a row
 * in `samples` fails this file, and so does a row for a route that no longer exists.
 */

const A = 'matrix-a';
const B = 'matrix-b';
/** Ids that do not exist, so destructive samples answer 404 instead of breaking later rows. */
const MISSING_ID = '00000000-0000-4000-8000-000000000000';
const MATRIX_USER = 'matrix.user@example.com';

interface Sample {
  /** Path with its parameters filled in, and the query string. */
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * Only where the route's own level is not the whole story: GraphQL is one `read` route, and
   * mutations check the role in their resolvers. Says which level the sample exercises.
   */
  access?: Access;
  /** A stream that never ends (SSE): read the status and headers, then hang up. */
  stream?: boolean;
}

const gql = (query: string) => ({ query });

/**
 * One sample request per route ("METHOD url" as in routeList). Where a route can name a project
 * (query parameter, path parameter, span or key body, GraphQL filter), the sample names project A:
 * that is what a key bound to project B must be refused. See `namesProjectA`.
 */
const samples: Record<string, Sample | Sample[]> = {
  // The dashboard's shell and assets hold no data (docs/ui.md); its data comes from /graphql.
  'GET /': { path: '/' },
  'GET /assets/*': { path: '/assets/none.js' },
  'GET /api/liveness': { path: '/api/liveness' },
  'GET /api/status': { path: '/api/status' },
  'GET /api/readiness': { path: '/api/readiness' },
  'POST /api/traces/spans': {
    path: '/api/traces/spans',
    body: [nativeSpan({ project_id: A, session_id: 'matrix' })],
  },
  // OTLP names no project a bound key could be refused for: the key's project wins (docs/auth.md#projects).
  'POST /api/traces/otlp': { path: '/api/traces/otlp', body: { resourceSpans: [] } },
  'POST /v1/traces': { path: '/v1/traces', body: { resourceSpans: [] } },
  'GET /api/traces/spans': { path: `/api/traces/spans?project_id=${A}&limit=1` },
  'GET /api/settings': { path: '/api/settings' },
  'PUT /api/settings': { path: '/api/settings', body: { redact_payloads: false } },
  'POST /api/auth/api-keys': {
    path: '/api/auth/api-keys',
    body: { name: 'matrix-sample', role: 'viewer', project_id: A },
  },
  'GET /api/auth/api-keys': { path: `/api/auth/api-keys?project_id=${A}` },
  'DELETE /api/auth/api-keys/:id': { path: `/api/auth/api-keys/${MISSING_ID}` },
  'GET /api/users': { path: '/api/users' },
  'POST /api/users/invite': {
    path: '/api/users/invite',
    body: { email: 'matrix.invitee@example.com', role: 'viewer' },
  },
  'PATCH /api/users/:user_id/role': {
    path: `/api/users/${MISSING_ID}/role`,
    body: { role: 'viewer' },
  },
  'DELETE /api/users/:user_id': { path: `/api/users/${MISSING_ID}` },
  'POST /api/users/accept-invite': {
    path: '/api/users/accept-invite',
    body: { token: 'no-such-token', password: GOOD_PASSWORD },
  },
  // A real user with the right password: a wrong one would answer 401 and look like an auth failure.
  'POST /api/users/verify': {
    path: '/api/users/verify',
    body: { email: MATRIX_USER, password: GOOD_PASSWORD },
  },
  'GET /api/projects': { path: '/api/projects' },
  'POST /api/projects': {
    path: '/api/projects',
    body: { id: 'matrix-created', name: 'Created by the matrix' },
  },
  'GET /api/projects/:project_id': { path: `/api/projects/${A}` },
  'PATCH /api/projects/:project_id': { path: `/api/projects/${A}`, body: { name: `Project ${A}` } },
  'DELETE /api/projects/:project_id': { path: '/api/projects/matrix-missing-project' },
  'GET /api/audit/logs': { path: '/api/audit/logs?limit=1' },
  'GET /graphql': {
    path: `/graphql?query=${encodeURIComponent(`{ spans(filter: { projectId: "${A}" }, first: 1) { edges { node { spanId } } } }`)}`,
    headers: { accept: 'application/json' },
  },
  'POST /graphql': [
    {
      path: '/graphql',
      body: gql(`{ spans(filter: { projectId: "${A}" }, first: 1) { edges { node { spanId } } } }`),
    },
    { path: '/graphql', body: gql(`{ project(id: "${A}") { id } }`) },
    { path: '/graphql', body: gql('{ projects { id } settings { redactPayloads } }') },
    {
      path: '/graphql',
      body: gql('mutation { deleteProject(id: "matrix-missing-project") }'),
      access: 'admin',
    },
    {
      path: '/graphql',
      body: gql('mutation { updateSettings { redactPayloads } }'),
      access: 'global-admin',
    },
    {
      path: '/graphql',
      body: gql(
        `{ costBreakdown(window: "30d", projectId: "${A}") { totalCostUsd } modelPricing(projectId: "${A}") { edges { node { modelId } } } }`,
      ),
    },
    {
      path: '/graphql',
      body: gql(
        `mutation { updateModelPricing(modelId: "gpt-4o", projectId: "${A}", input: { inputPer1mUsd: 2.5 }) { modelId } }`,
      ),
      access: 'admin',
    },
    {
      path: '/graphql',
      body: gql(`{ slos(projectId: "${A}") { sloId } sloStatus(projectId: "${A}") { status } }`),
    },
    {
      path: '/graphql',
      body: gql(`mutation { deleteSlo(sloId: "${MISSING_ID}", projectId: "${A}") }`),
      access: 'write',
    },
    {
      path: '/graphql',
      body: gql(
        `{ preventionConfig(agentName: "planner", projectId: "${A}") { loopThreshold } preventionConfigs(projectId: "${A}") { agentName } }`,
      ),
    },
    {
      path: '/graphql',
      body: gql(
        `mutation { updatePreventionConfig(agentName: "planner", projectId: "${A}", input: { maxSteps: 3 }) { maxSteps } }`,
      ),
      access: 'write',
    },
  ],
  // A CORS preflight: browsers send no key on one, so it is answered before authentication.
  'OPTIONS /graphql': {
    path: '/graphql',
    headers: { origin: 'http://127.0.0.1:3000', 'access-control-request-method': 'POST' },
    access: 'public',
  },
  // Guarded by its own SPYGLASS_METRICS_TOKEN, not by API keys; unset here, so 404 for everyone.
  'GET /metrics': { path: '/metrics' },
  'GET /api/live/events': { path: `/api/live/events?project_id=${A}`, stream: true },
  'GET /api/agents/sessions': { path: `/api/agents/sessions?project_id=${A}` },
  'GET /api/agents/sessions/:session_id': { path: `/api/agents/sessions/matrix?project_id=${A}` },
  'GET /api/agents/lineage': { path: `/api/agents/lineage?project_id=${A}` },
  'GET /api/agents/metadata': { path: `/api/agents/metadata?project_id=${A}` },
  'GET /api/agents/metadata/:agent_name': { path: `/api/agents/metadata/planner?project_id=${A}` },
  'PUT /api/agents/metadata/:agent_name': {
    path: `/api/agents/metadata/planner?project_id=${A}`,
    body: { description: 'set by the matrix' },
  },
  'DELETE /api/agents/metadata/:agent_name': {
    path: `/api/agents/metadata/matrix-missing-agent?project_id=${A}`,
  },
  'GET /api/servers/metadata': { path: `/api/servers/metadata?project_id=${A}` },
  'GET /api/servers/metadata/:name': { path: `/api/servers/metadata/filesystem?project_id=${A}` },
  'PUT /api/servers/metadata/:name': {
    path: `/api/servers/metadata/filesystem?project_id=${A}`,
    body: { description: 'set by the matrix' },
  },
  'DELETE /api/servers/metadata/:name': {
    path: `/api/servers/metadata/matrix-missing-server?project_id=${A}`,
  },
  'POST /api/agents/discover': { path: `/api/agents/discover?project_id=${A}` },
  'POST /api/servers/discover': { path: `/api/servers/discover?project_id=${A}` },
  'GET /api/health/servers': { path: `/api/health/servers?project_id=${A}` },
  'GET /api/health/servers/:name': { path: `/api/health/servers/filesystem?project_id=${A}` },
  'GET /api/health/servers/:name/history': {
    path: `/api/health/servers/filesystem/history?project_id=${A}`,
  },
  'GET /api/health/servers/:name/drift-history': {
    path: `/api/health/servers/filesystem/drift-history?project_id=${A}`,
  },
  'GET /api/health/servers/:name/drift-impact': {
    path: `/api/health/servers/filesystem/drift-impact?project_id=${A}&tool_name=read_file`,
  },
  'GET /api/health/servers/:name/blast-radius': {
    path: `/api/health/servers/filesystem/blast-radius?project_id=${A}`,
  },
  'GET /api/health/servers/:name/scorecard': {
    path: `/api/health/servers/filesystem/scorecard?project_id=${A}`,
  },
  'POST /api/servers/:name/tools': {
    path: `/api/servers/matrix-observed/tools?project_id=${A}`,
    body: { tools: [{ name: 'read_file' }] },
  },
  // A server that is not configured: 404 instead of really probing anything.
  'POST /api/health/check': {
    path: '/api/health/check',
    body: { project_id: A, server_name: 'matrix-missing-server' },
  },
  'GET /api/security/servers/:name': { path: `/api/security/servers/filesystem?project_id=${A}` },
  'GET /api/security/servers/:name/history': {
    path: `/api/security/servers/filesystem/history?project_id=${A}`,
  },
  'GET /api/reliability/anomalies': { path: `/api/reliability/anomalies?project_id=${A}` },
  // Like the health check: a server that is not configured answers 404 instead of scanning anything.
  'POST /api/security/scan': {
    path: '/api/security/scan',
    body: { project_id: A, server_name: 'matrix-missing-server' },
  },
  'GET /api/costs/breakdown': { path: `/api/costs/breakdown?project_id=${A}&window=7d` },
  'GET /api/costs/models': { path: `/api/costs/models?project_id=${A}&history=true` },
  'POST /api/costs/models': {
    path: `/api/costs/models?project_id=${A}`,
    body: { model_id: 'matrix-model', input_per_1m_usd: 1, output_per_1m_usd: 2 },
  },
  'PATCH /api/costs/models/:model_id': {
    path: `/api/costs/models/gpt-4o?project_id=${A}`,
    body: { output_per_1m_usd: 10 },
  },
  'DELETE /api/costs/models/:model_id': {
    path: `/api/costs/models/matrix-missing-model?project_id=${A}`,
  },
  'GET /api/slos': { path: `/api/slos?project_id=${A}` },
  'POST /api/slos': {
    path: `/api/slos?project_id=${A}`,
    body: { agent_name: 'matrix-agent', metric: 'success_rate', threshold: 99 },
  },
  'GET /api/slos/status': { path: `/api/slos/status?project_id=${A}` },
  'PATCH /api/slos/:slo_id': {
    path: `/api/slos/${MISSING_ID}?project_id=${A}`,
    body: { threshold: 50 },
  },
  'DELETE /api/slos/:slo_id': { path: `/api/slos/${MISSING_ID}?project_id=${A}` },
  'GET /api/alerts/inbox': { path: `/api/alerts/inbox?project_id=${A}` },
  'GET /api/alerts/counts': { path: `/api/alerts/counts?project_id=${A}` },
  'POST /api/alerts/:id/ack': { path: `/api/alerts/${MISSING_ID}/ack?project_id=${A}` },
  'POST /api/alerts/:id/resolve': { path: `/api/alerts/${MISSING_ID}/resolve?project_id=${A}` },
  'POST /api/alerts/:id/snooze': {
    path: `/api/alerts/${MISSING_ID}/snooze?project_id=${A}`,
    body: { minutes: 15 },
  },
  'GET /api/alerts/config': { path: `/api/alerts/config?project_id=${A}` },
  'POST /api/alerts/config': {
    path: `/api/alerts/config?project_id=${A}`,
    body: { alert_types: { mcp_down: true } },
  },
  // No webhook is configured: answers {ok: false} without sending anything.
  'POST /api/alerts/test': { path: `/api/alerts/test?project_id=${A}` },
  'GET /api/agents/:name/prevention-config': {
    path: `/api/agents/planner/prevention-config?project_id=${A}`,
  },
  'PUT /api/agents/:name/prevention-config': {
    path: `/api/agents/planner/prevention-config?project_id=${A}`,
    body: { loop_threshold: 5 },
  },
  'PATCH /api/agents/:name/prevention-config': {
    path: `/api/agents/planner/prevention-config?project_id=${A}`,
    body: { max_steps: 10 },
  },
  'DELETE /api/agents/:name/prevention-config': {
    path: `/api/agents/matrix-missing-agent/prevention-config?project_id=${A}`,
  },
  'GET /api/projects/:project_id/prevention-config': {
    path: `/api/projects/${A}/prevention-config`,
  },
  'PUT /api/projects/:project_id/prevention-config': {
    path: `/api/projects/${A}/prevention-config`,
    body: { loop_threshold: 5 },
  },
  'PATCH /api/projects/:project_id/prevention-config': {
    path: `/api/projects/${A}/prevention-config`,
    body: { max_steps: 10 },
  },
  'DELETE /api/projects/:project_id/prevention-config': {
    path: '/api/projects/matrix-missing-project/prevention-config',
  },
  'GET /api/prevention-config': { path: `/api/prevention-config?project_id=${A}` },
  'PUT /api/prevention-config': {
    path: `/api/prevention-config?project_id=${A}`,
    body: { loop_threshold: 5 },
  },
  'PATCH /api/prevention-config': {
    path: `/api/prevention-config?project_id=${A}`,
    body: { max_steps: 10 },
  },
  'DELETE /api/prevention-config': { path: `/api/prevention-config?project_id=${A}` },
  'GET /api/prevention-configs': { path: `/api/prevention-configs?project_id=${A}` },
};

/** Sends a sample; for a stream, only the status line and headers are awaited. */
async function send(
  base: InProcessApp,
  method: string,
  sample: Sample,
  authHeaders: Record<string, string>,
): Promise<Reply> {
  const headers = { ...sample.headers, ...authHeaders };
  if (!sample.stream) return call(base, method, sample.path, { body: sample.body, headers });
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 10_000);
  try {
    return await readReply(
      await base.fetch(sample.path, { method, headers, signal: abort.signal }),
    );
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

const namesProjectA = (s: Sample) =>
  decodeURIComponent(`${s.path} ${JSON.stringify(s.body ?? null)}`).includes(A);

type PrincipalName =
  | 'no key'
  | 'invalid key'
  | 'expired key'
  | 'revoked key'
  | 'viewer'
  | 'viewer (Bearer)'
  | 'admin'
  | `admin bound to ${typeof B}`;
type Expected = { exactly: number } | { not: number[] };

/** The status a caller must get, from the access level alone (docs/auth.md). */
function expected(access: Access, who: PrincipalName, namesA: boolean): Expected {
  if (access === 'public') return { not: [401, 403] };
  switch (who) {
    case 'no key':
    case 'invalid key':
    case 'expired key':
    case 'revoked key':
      return { exactly: 401 };
    case 'viewer':
    case 'viewer (Bearer)':
      return access === 'read' ? { not: [401, 403] } : { exactly: 403 };
    case 'admin':
      return { not: [401, 403] };
    default:
      return access === 'global-admin' || namesA ? { exactly: 403 } : { not: [401] };
  }
}

/** GraphQL reports resolver errors in a 200 body; its `extensions.status` is the status that counts. */
function effectiveStatus(r: Reply): number {
  const status = r.json?.errors?.[0]?.extensions?.status;
  return typeof status === 'number' ? status : r.status;
}

describe('auth route matrix', () => {
  let server: InProcessApp;
  let base: Base;
  const boot = bootstrapKey();
  const principals = new Map<PrincipalName, Record<string, string>>();

  beforeAll(async () => {
    // In-process (app.inject): what is checked is each route's answer to each caller, not a socket.
    server = await startInProcessApp({ SPYGLASS_API_KEYS: boot, SPYGLASS_RATE_LIMITS: 'off' });
    base = server;
    await createProject(base, boot, A);
    await createProject(base, boot, B);
    const viewer = await createKey(base, boot, { role: 'viewer' });
    const admin = await createKey(base, boot, { role: 'admin' });
    const adminB = await createKey(base, boot, { role: 'admin', project_id: B });
    // The API takes an expiry in the past; such a key is expired from the start.
    const expired = await createKey(base, boot, {
      role: 'admin',
      expires_at: new Date(Date.now() - 60_000).toISOString(),
    });
    const revoked = await createKey(base, boot, { role: 'admin' });
    // Used once before revoking, so a cached "valid" answer would show up as a wrong 2xx below.
    expectStatus(
      await call(base, 'GET', '/api/settings', { key: revoked.key }),
      200,
      'revoked key before revocation',
    );
    await revokeKey(base, boot, revoked.id);

    const invite = expectStatus(
      await call(base, 'POST', '/api/users/invite', {
        key: boot,
        body: { email: MATRIX_USER, role: 'viewer' },
      }),
      201,
      'invite',
    );
    expectStatus(
      await call(base, 'POST', '/api/users/accept-invite', {
        key: boot,
        body: { token: invite.json.invite_token, password: GOOD_PASSWORD },
      }),
      200,
      'accept',
    );

    principals.set('no key', {});
    principals.set('invalid key', { 'x-api-key': `sg_${'0'.repeat(64)}` });
    principals.set('expired key', { 'x-api-key': expired.key });
    principals.set('revoked key', { 'x-api-key': revoked.key });
    principals.set('viewer', { 'x-api-key': viewer.key });
    principals.set('viewer (Bearer)', { authorization: `Bearer ${viewer.key}` });
    principals.set('admin', { 'x-api-key': admin.key });
    principals.set(`admin bound to ${B}`, { 'x-api-key': adminB.key });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('has exactly one samples row per route in routeList', () => {
    const routes = server.app.routeList.map((r) => `${r.method} ${r.url}`);
    const missing = routes.filter((r) => !(r in samples));
    const stale = Object.keys(samples).filter((k) => !routes.includes(k));
    expect({ routesWithoutSample: missing, samplesWithoutRoute: stale }).toEqual({
      routesWithoutSample: [],
      samplesWithoutRoute: [],
    });
    expect(routes.length).toBeGreaterThan(20);
  });

  it('answers every route × caller as its access level says', async () => {
    const mismatches: string[] = [];
    let cells = 0;
    for (const route of server.app.routeList) {
      const row = samples[`${route.method} ${route.url}`];
      if (!row) continue; // reported by the test above
      for (const [i, sample] of [row].flat().entries()) {
        const access = sample.access ?? route.access;
        for (const [who, authHeaders] of principals) {
          const r = await send(server, route.method, sample, authHeaders);
          cells++;
          const got = effectiveStatus(r);
          const want = expected(access, who, namesProjectA(sample));
          const ok = 'exactly' in want ? got === want.exactly : !want.not.includes(got);
          if (!ok || got >= 500) {
            const wantText = 'exactly' in want ? String(want.exactly) : `not ${want.not.join('/')}`;
            mismatches.push(
              `${route.method} ${sample.path} [${access}${Array.isArray(row) ? ` sample ${i}` : ''}] as ${who}: want ${wantText}, got ${got} ${r.text.slice(0, 160)}`,
            );
          }
        }
      }
    }
    expect(mismatches).toEqual([]);
    const covered = server.app.routeList.filter((r) => `${r.method} ${r.url}` in samples).length;
    expect(covered).toBeGreaterThan(20);
    expect(cells).toBeGreaterThanOrEqual(covered * principals.size);
  });

  it('covers every access level and names project A wherever a route can', () => {
    const levels = new Set(server.app.routeList.map((r) => r.access));
    expect([...levels].sort()).toEqual(['admin', 'global-admin', 'public', 'read', 'write']);
    // Routes with a :project_id parameter must name A (DELETE aside: it points at a missing project), or the bound-key rows prove nothing.
    for (const [route, row] of Object.entries(samples)) {
      if (route.includes(':project_id') && !route.startsWith('DELETE')) {
        for (const s of [row].flat()) expect(namesProjectA(s), route).toBe(true);
      }
    }
  });

  it('stops accepting a key the moment it expires, even when it was just cached', async () => {
    const soon = await createKey(base, boot, {
      role: 'viewer',
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    });
    expect((await call(base, 'GET', '/api/settings', { key: soon.key })).status).toBe(200);
    const deadline = Date.parse(soon.expires_at ?? '');
    // Just after the expiry by the clock the key check reads (Date only; timers stay real).
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(deadline + 1);
    const after = await call(base, 'GET', '/api/settings', { key: soon.key }).finally(() =>
      vi.useRealTimers(),
    );
    expect(after.status).toBe(401);
  });
});
