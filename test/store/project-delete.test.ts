import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveCheck } from '../../src/store/health-repo.ts';
import { insertScan } from '../../src/store/security-repo.ts';
import { call, configFile, createKey, createProject, expectStatus } from '../helpers/auth.ts';
import { backends } from '../helpers/backends.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { nativeSpan } from '../helpers/spans.ts';

/**
 * Item 11: deleting a project removes everything of it. After a project of the same id is created
 * again, every route that returns project data (REST and GraphQL) answers exactly as it does for a
 * project that never held anything.
 */
const ADMIN = `sg_${'d'.repeat(63)}e`;
const P = 'doomed';
const FRESH = 'pristine';
const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);

/** Every read that returns project data, for project `p`, as [label, path or GraphQL query]. */
function reads(p: string): [string, string][] {
  const since = encodeURIComponent(new Date(Date.now() - 7 * 86_400_000).toISOString());
  return [
    ['spans', `/api/traces/spans?project_id=${p}&since=${since}`],
    ['spans of the session', `/api/traces/spans?project_id=${p}&session_id=del-s1&since=${since}`],
    ['sessions', `/api/agents/sessions?project_id=${p}&since=${since}`],
    ['session', `/api/agents/sessions/del-s1?project_id=${p}`],
    ['session by trace', `/api/agents/sessions/del-t2?project_id=${p}`],
    ['lineage', `/api/agents/lineage?project_id=${p}&since=${since}`],
    ['agents', `/api/agents/metadata?project_id=${p}`],
    ['agent', `/api/agents/metadata/planner?project_id=${p}`],
    ['servers', `/api/servers/metadata?project_id=${p}`],
    ['server', `/api/servers/metadata/filesystem?project_id=${p}`],
    ['health', `/api/health/servers?project_id=${p}`],
    ['health of a server', `/api/health/servers/filesystem?project_id=${p}`],
    ['health history', `/api/health/servers/filesystem/history?project_id=${p}`],
    ['drift history', `/api/health/servers/filesystem/drift-history?project_id=${p}`],
    [
      'drift impact',
      `/api/health/servers/filesystem/drift-impact?tool_name=read_file&project_id=${p}`,
    ],
    ['blast radius', `/api/health/servers/filesystem/blast-radius?project_id=${p}`],
    ['scorecard', `/api/health/servers/filesystem/scorecard?project_id=${p}`],
    ['security scan', `/api/security/servers/filesystem?project_id=${p}`],
    ['security history', `/api/security/servers/filesystem/history?project_id=${p}`],
    [
      'gql spans',
      `{ spans(filter: { projectId: "${p}", since: "${decodeURIComponent(since)}" }) { edges { node { spanId sessionId traceId } } } }`,
    ],
    [
      'gql sessions',
      `{ sessions(projectId: "${p}", since: "${decodeURIComponent(since)}") { edges { node { sessionId spanCount } } } }`,
    ],
    [
      'gql session',
      `{ session(projectId: "${p}", sessionId: "del-s1") { session { sessionId spanCount } } }`,
    ],
    [
      'gql lineage',
      `{ lineage(projectId: "${p}", since: "${decodeURIComponent(since)}") { nodes { id calls } edges { source target calls } } }`,
    ],
    ['gql agents', `{ agents(projectId: "${p}") { name description } }`],
    ['gql servers', `{ servers(projectId: "${p}") { name url } }`],
    [
      'gql health',
      `{ healthServers(projectId: "${p}") { serverName status schemaHash securityScan { findingsCount } } }`,
    ],
    [
      'gql security scan',
      `{ securityScan(projectId: "${p}", name: "filesystem") { findingsCount highestSeverity } }`,
    ],
    [
      'gql health of a server',
      `{ healthServer(projectId: "${p}", name: "filesystem") { status schemaHash } }`,
    ],
    [
      'gql health history',
      `{ healthHistory(projectId: "${p}", name: "filesystem") { status schemaHash } }`,
    ],
    [
      'gql drift history',
      `{ driftHistory(projectId: "${p}", name: "filesystem") { classification currentHash } }`,
    ],
    [
      'gql drift impact',
      `{ driftImpact(projectId: "${p}", name: "filesystem", toolName: "read_file") { totalSessions consumers { agentName } } }`,
    ],
    [
      'gql scorecard',
      `{ scorecard(projectId: "${p}", name: "filesystem") { grade score dimensions { name rawScore } } }`,
    ],
    [
      'gql blast radius',
      `{ blastRadius(projectId: "${p}", name: "filesystem") { totalCalls totalSessions affectedAgents { agentName } } }`,
    ],
  ];
}

describe.each(backends.filter((b) => b.available))('deleting a project on $name', (backend) => {
  let server: InProcessApp;
  let config: ReturnType<typeof configFile>;
  let oldKeyId: string;
  let oldKey: string;

  /** Status and body of every read, with the project id and timestamps made neutral. */
  async function snapshot(p: string, key = ADMIN): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const [label, target] of reads(p)) {
      const r = target.startsWith('/')
        ? await call(server, 'GET', target, { key })
        : await call(server, 'POST', '/graphql', { key, body: { query: target } });
      out[label] = JSON.parse(
        JSON.stringify({ status: r.status, body: r.json })
          .replaceAll(p, 'P')
          .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'T'),
      );
    }
    return out;
  }

  /** The audit entries a key bound to `p` is shown, as action and resource. */
  async function auditOf(p: string): Promise<string[]> {
    const key = (await createKey(server, ADMIN, { role: 'admin', project_id: p })).key;
    const entries = expectStatus(
      await call(server, 'GET', '/api/audit/logs?limit=200', { key }),
      200,
      'audit',
    ).json as { action: string; resource: string }[];
    return entries.map(
      (e) => `${e.action} ${e.resource.replaceAll(p, 'P').replace(/^api_key:.*/, 'api_key:K')}`,
    );
  }

  beforeAll(async () => {
    // The catalog server's URL is a loopback address: allowed here, as the outbound policy requires.
    config = configFile(
      'monitor:\n  enabled: false\nnetwork:\n  allow_private_targets: [127.0.0.0/8]\n',
    );
    server = await startInProcessApp({
      ...(await backend.env()),
      SPYGLASS_CONFIG: config.path,
      SPYGLASS_API_KEYS: ADMIN,
      SPYGLASS_RATE_LIMITS: 'off',
    });
    await createProject(server, ADMIN, P);
    await createProject(server, ADMIN, FRESH);
    const key = await createKey(server, ADMIN, { role: 'admin', project_id: P });
    oldKeyId = key.id;
    oldKey = key.key;
    // Spans (a session, a session keyed by its trace, a handoff for the lineage), written by P's key.
    const spans = [
      nativeSpan({ session_id: 'del-s1', trace_id: 'del-t1', status: 'error', error: 'boom' }),
      nativeSpan({
        session_id: 'del-s1',
        trace_id: 'del-t1',
        span_type: 'handoff',
        server_name: 'researcher',
        tool_name: 'handoff',
      }),
      nativeSpan({ session_id: null, trace_id: 'del-t2' }),
    ];
    expectStatus(
      await call(server, 'POST', '/api/traces/spans', { key: oldKey, body: spans }),
      202,
      'ingest',
    );
    // Catalog entries, edited by hand; the server has a URL, so health lists it.
    expectStatus(
      await call(server, 'PUT', `/api/agents/metadata/planner?project_id=${P}`, {
        key: ADMIN,
        body: { description: 'plans' },
      }),
      200,
      'agent',
    );
    expectStatus(
      await call(server, 'PUT', `/api/servers/metadata/filesystem?project_id=${P}`, {
        key: ADMIN,
        body: { transport: 'sse', url: 'http://127.0.0.1:9/sse' },
      }),
      200,
      'server',
    );
    // Health results and a drift event, as the checker stores them.
    const result = (hash: string, drift: boolean) => ({
      id: randomUUID(),
      projectId: P,
      serverName: 'filesystem',
      status: 'up' as const,
      latencyMs: 3,
      toolsCount: 1,
      schemaHash: hash,
      error: null,
      checkedAt: new Date(),
      schemaDrift: drift,
      transport: 'sse',
      serverInfo: null,
      protocolVersion: '2025-11-25',
    });
    await saveCheck(server.services.store.db, {
      result: result(HASH_A, false),
      instructions: null,
      tools: [],
      drift: null,
    });
    const second = result(HASH_B, true);
    await saveCheck(server.services.store.db, {
      result: second,
      instructions: null,
      tools: [],
      drift: {
        id: randomUUID(),
        projectId: P,
        serverName: 'filesystem',
        detectedAt: new Date(),
        previousHash: HASH_A,
        currentHash: HASH_B,
        classification: 'BREAKING',
        changes: [],
      },
    });
    // A security scan with a finding (the scorecard reads the latest one).
    await insertScan(server.services.store.db, {
      id: randomUUID(),
      projectId: P,
      serverName: 'filesystem',
      scannedAt: new Date(),
      findings: [
        {
          severity: 'high',
          category: 'OWASP-MCP-07',
          rule: 'plaintext-transport',
          kind: 'owasp',
          title: 'plaintext',
          description: 'http',
          remediation: 'https',
        },
      ],
    });
    // Project settings and an audit entry of the project.
    expectStatus(
      await call(server, 'PATCH', `/api/projects/${P}`, {
        key: ADMIN,
        body: { settings: { team: 'old' } },
      }),
      200,
      'patch',
    );
    // A PGlite server runs initdb first: slow on a busy machine.
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    config?.remove();
  });

  it('leaves nothing behind: a recreated id reads exactly like a project that never held data', async () => {
    const pristine = await snapshot(FRESH);
    const before = await snapshot(P);
    // The reads do see the project's data while it exists (each differs from an empty project's).
    for (const [label] of reads(P)) expect(before[label], label).not.toEqual(pristine[label]);

    expectStatus(await call(server, 'DELETE', `/api/projects/${P}`, { key: ADMIN }), 204, 'delete');
    expectStatus(
      await call(server, 'POST', '/api/projects', {
        key: ADMIN,
        body: { id: P, name: 'Reborn' },
      }),
      201,
      'recreate',
    );

    expect(await snapshot(P)).toEqual(pristine);
    const project = expectStatus(
      await call(server, 'GET', `/api/projects/${P}`, { key: ADMIN }),
      200,
      'project',
    ).json;
    expect(project).toMatchObject({ id: P, name: 'Reborn', settings: {} });
    expect(await auditOf(P)).toEqual(await auditOf(FRESH));
  });

  it('removes the keys bound to it: no longer listed, and refused', async () => {
    const keys = expectStatus(
      await call(server, 'GET', '/api/auth/api-keys', { key: ADMIN }),
      200,
      'keys',
    ).json as { id: string }[];
    expect(keys.map((k) => k.id)).not.toContain(oldKeyId);
    expect(
      (await call(server, 'GET', `/api/agents/sessions?project_id=${P}`, { key: oldKey })).status,
    ).toBe(401);
  });

  it("keeps the record of the deletion in the instance-wide audit log, after the deleted project's own entries went with it", async () => {
    const entries = expectStatus(
      await call(server, 'GET', '/api/audit/logs?limit=200', { key: ADMIN }),
      200,
      'audit',
    ).json as { action: string; resource: string }[];
    expect(entries.filter((e) => e.resource === `project:${P}`).map((e) => e.action)).toEqual([
      'project.created',
      'project.deleted',
    ]);
  });
});
