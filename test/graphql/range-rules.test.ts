import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';

/**
 * One rule per domain value (docs/architecture.md#services-own-policy): the service that owns a
 * range checks it, so REST (422 `detail`) and GraphQL (`VALIDATION` with `issues`) refuse the same
 * out-of-range value with the same issues, and accept the same edge value.
 */
const ADMIN = `sg_${'e'.repeat(64)}`;
const SLO = { agent_name: 'planner', metric: 'success_rate', threshold: 99 };

interface Case {
  what: string;
  rest: { method?: string; path: string; body?: unknown };
  gql: string;
  issues: { loc: (string | number)[]; msg: string; type: string }[];
}

const range = (loc: string[], min: number, max: number) => ({
  loc,
  msg: `Input should be an integer from ${min} to ${max}`,
  type: 'int_range',
});

const CASES: Case[] = [
  {
    what: 'health history limit',
    rest: { path: '/api/health/servers/alpha/history?limit=101' },
    gql: '{ healthHistory(name: "alpha", limit: 101) { status } }',
    issues: [range(['query', 'limit'], 1, 100)],
  },
  {
    what: 'health history page size (first)',
    rest: { path: '/api/health/servers/alpha/history?limit=0' },
    gql: '{ healthHistoryConnection(name: "alpha", first: 0) { edges { cursor } } }',
    issues: [range(['query', 'limit'], 1, 100)],
  },
  {
    what: 'drift history limit',
    rest: { path: '/api/health/servers/alpha/drift-history?limit=101' },
    gql: '{ driftHistory(name: "alpha", limit: 101) { id } }',
    issues: [range(['query', 'limit'], 1, 100)],
  },
  {
    what: 'drift impact hours',
    rest: { path: '/api/health/servers/alpha/drift-impact?tool_name=x&hours=169' },
    gql: '{ driftImpact(name: "alpha", toolName: "x", hours: 169) { totalSessions } }',
    issues: [range(['query', 'hours'], 1, 168)],
  },
  {
    what: 'blast radius hours',
    rest: { path: '/api/health/servers/alpha/blast-radius?hours=721' },
    gql: '{ blastRadius(name: "alpha", hours: 721) { severity } }',
    issues: [range(['query', 'hours'], 1, 720)],
  },
  {
    what: 'alert inbox limit',
    rest: { path: '/api/alerts/inbox?limit=201' },
    gql: '{ alerts(first: 201) { edges { cursor } } }',
    issues: [range(['query', 'limit'], 1, 200)],
  },
  {
    what: 'security history limit and offset, both at once',
    rest: { path: '/api/security/servers/alpha/history?limit=101&offset=10001' },
    gql: '{ securityScanHistory(name: "alpha", limit: 101, offset: 10001) { id } }',
    issues: [range(['query', 'limit'], 1, 100), range(['query', 'offset'], 0, 10_000)],
  },
  {
    what: 'SLO window',
    rest: { method: 'POST', path: '/api/slos', body: { ...SLO, window_hours: 721 } },
    gql: 'mutation { createSlo(input: {agentName: "planner", metric: "success_rate", threshold: 99, windowHours: 721}) { sloId } }',
    issues: [range(['body', 'window_hours'], 1, 720)],
  },
  {
    what: 'sessions look-back',
    rest: { path: '/api/agents/sessions?hours=721' },
    gql: '{ sessions(hours: 721) { edges { cursor } } }',
    issues: [range(['query', 'hours'], 1, 720)],
  },
  {
    // Below the range: above it GraphQL's query cost limit refuses `first` before any rule runs.
    what: 'spans page size',
    rest: { path: '/api/traces/spans?limit=0' },
    gql: '{ spans(first: 0) { edges { cursor } } }',
    issues: [range(['query', 'limit'], 1, 1000)],
  },
];

/** The same reads at the edge of each range: accepted by both. */
const EDGES: [string, string][] = [
  [
    '/api/health/servers/alpha/history?limit=100',
    '{ healthHistory(name: "alpha", limit: 100) { status } }',
  ],
  [
    '/api/health/servers/alpha/drift-impact?tool_name=x&hours=168',
    '{ driftImpact(name: "alpha", toolName: "x", hours: 168) { totalSessions } }',
  ],
  [
    '/api/health/servers/alpha/blast-radius?hours=720',
    '{ blastRadius(name: "alpha", hours: 720) { severity } }',
  ],
  ['/api/alerts/inbox?limit=200', '{ alerts(first: 200) { edges { cursor } } }'],
];

let h: InProcessApp;

beforeAll(async () => {
  h = await startInProcessApp({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
});
afterAll(async () => {
  await h?.close();
});

async function rest(c: Case['rest']): Promise<{ status: number; json: any }> {
  const res = await h.fetch(c.path, {
    method: c.method ?? 'GET',
    headers: {
      'x-api-key': ADMIN,
      ...(c.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(c.body === undefined ? {} : { body: JSON.stringify(c.body) }),
  });
  return { status: res.status, json: await res.json() };
}

describe('one range rule, refused alike by REST and GraphQL', () => {
  it.each(CASES.map((c) => [c.what, c] as const))('%s', async (_what, c) => {
    const r = await rest(c.rest);
    expect(r.status).toBe(422);
    expect(r.json).toEqual({ detail: c.issues });
    const g = await h.gql(c.gql, {}, ADMIN);
    expect(g.data).toBeNull();
    expect(g.errors).toHaveLength(1);
    expect(g.errors[0].extensions).toEqual({ code: 'VALIDATION', status: 422, issues: c.issues });
  });

  it('names every value of a range in the message GraphQL shows', async () => {
    const g = await h.gql(
      '{ securityScanHistory(name: "alpha", limit: 0, offset: -1) { id } }',
      {},
      ADMIN,
    );
    expect(g.errors[0].message).toBe(
      'limit must be an integer from 1 to 100; offset must be an integer from 0 to 10000',
    );
  });

  it('accepts the edge of each range over both', async () => {
    for (const [path, query] of EDGES) {
      expect((await rest({ path })).status, path).toBe(200);
      const g = await h.gql(query, {}, ADMIN);
      expect(g.errors, query).toBeUndefined();
    }
  });

  it('fills the same defaults when the value is left out', async () => {
    const r = await rest({ path: '/api/health/servers/alpha/blast-radius' });
    const g = await h.gql('{ blastRadius(name: "alpha") { windowHours } }', {}, ADMIN);
    expect([r.json.window_hours, g.data.blastRadius.windowHours]).toEqual([24, 24]);
    const d = await rest({ path: '/api/health/servers/alpha/drift-impact?tool_name=x' });
    expect(d.json.window_hours).toBe(24);
  });
});
