import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { nativeSpan } from '../helpers/spans.ts';

/** agentSessionStats: the session rollups summed per agent, for the dashboard's agent pages. */
const ADMIN = `sg_${'d'.repeat(64)}`;
let h: InProcessApp;
const ago = (min: number) => new Date(Date.now() - min * 60_000).toISOString();
const span = (over: Record<string, unknown>) =>
  nativeSpan({ started_at: ago(5), ended_at: ago(4.9), ...over });

beforeAll(async () => {
  h = await startInProcessApp({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
  const made = await h.gql(
    'mutation { createProject(id: "other", name: "Other") { id } }',
    {},
    ADMIN,
  );
  expect(made.errors).toBeUndefined();
  const spans = [
    // planner: 2 sessions, 3 calls, 1 failed
    span({ session_id: 'p1', agent_name: 'planner' }),
    span({
      session_id: 'p1',
      agent_name: 'planner',
      status: 'error',
      error: 'boom',
      output_result: null,
    }),
    span({ session_id: 'p2', agent_name: 'planner', started_at: ago(2), ended_at: ago(1.9) }),
    // coder: 1 session, 1 call
    span({ session_id: 'c1', agent_name: 'coder' }),
    // no agent: left out
    span({ session_id: 'anon', agent_name: null }),
    // 30 hours ago: outside the default window
    span({ session_id: 'old', agent_name: 'coder', started_at: ago(1800), ended_at: ago(1799.9) }),
    // another project
    span({ session_id: 'o1', agent_name: 'planner', project_id: 'other' }),
  ];
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/traces/spans',
    headers: { 'content-type': 'application/json', 'x-api-key': ADMIN },
    payload: JSON.stringify(spans),
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
});
afterAll(async () => h?.close());

const STATS = `query ($p: String, $a: String, $h: Int) {
  agentSessionStats(projectId: $p, agentName: $a, hours: $h) {
    agentName sessions toolCalls failedCalls preventedCalls estCostUsd lastCallAt
  }
}`;

describe('agentSessionStats', () => {
  it('sums the sessions of the window per agent, most sessions first, without agentless ones', async () => {
    const { data, errors } = await h.gql(STATS, { p: 'default' }, ADMIN);
    expect(errors).toBeUndefined();
    const rows = data.agentSessionStats as Record<string, unknown>[];
    expect(rows.map((r) => [r.agentName, r.sessions, r.toolCalls, r.failedCalls])).toEqual([
      ['planner', 2, 3, 1],
      ['coder', 1, 1, 0],
    ]);
    expect(Date.parse(String(rows[0]?.lastCallAt))).toBeGreaterThan(Date.now() - 3 * 60_000);
    const wider = await h.gql(STATS, { p: 'default', h: 48 }, ADMIN);
    // A tie in sessions is ordered by name.
    expect(wider.data.agentSessionStats[0]).toMatchObject({ agentName: 'coder', sessions: 2 });
  });

  it('narrows to one agent; a global key naming no project sums every project', async () => {
    const one = await h.gql(STATS, { p: 'default', a: 'coder' }, ADMIN);
    expect(one.data.agentSessionStats.map((r: { agentName: string }) => r.agentName)).toEqual([
      'coder',
    ]);
    const all = await h.gql(STATS, { a: 'planner' }, ADMIN);
    expect(all.data.agentSessionStats[0]).toMatchObject({ sessions: 3, toolCalls: 4 });
  });

  it('a project-bound key sees its project only; hours out of range is a validation error', async () => {
    const { data: created } = await h.gql(
      'mutation { createApiKey(input: {name: "v", role: "viewer", projectId: "other"}) { key } }',
      {},
      ADMIN,
    );
    const key = created.createApiKey.key as string;
    const mine = await h.gql(STATS, {}, key);
    expect(mine.data.agentSessionStats).toMatchObject([{ agentName: 'planner', sessions: 1 }]);
    const elsewhere = await h.gql(STATS, { p: 'default' }, key);
    expect(elsewhere.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const bad = await h.gql(STATS, { p: 'default', h: 721 }, ADMIN);
    expect(bad.errors?.[0]?.extensions?.code).toBe('VALIDATION');
  });
});
