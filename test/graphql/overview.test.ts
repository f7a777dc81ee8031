import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { nativeSpan } from '../helpers/spans.ts';

/** The overview's server-side counts (docs/ui.md#pages): spansPerMinute and sessionHealthCounts. */
const ADMIN = `sg_${'c'.repeat(64)}`;
let h: InProcessApp;
/** The start of the minute the spans were seeded in; spans sit 5 s into their minutes. */
const minuteStart = Math.floor(Date.now() / 60_000) * 60_000;
const at = (minutesAgo: number, plusMs = 5_000) =>
  new Date(minuteStart - minutesAgo * 60_000 + plusMs);

const span = (minutesAgo: number, over: Record<string, unknown> = {}) =>
  nativeSpan({
    started_at: at(minutesAgo).toISOString(),
    ended_at: at(minutesAgo, 5_040).toISOString(),
    ...over,
  });

/** Per seeded minute (minutes ago): [spans, errors] in project default. */
const SEEDED: Record<number, [number, number]> = { 0: [3, 1], 2: [4, 2], 5: [1, 0] };

beforeAll(async () => {
  h = await startInProcessApp({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
  const made = await h.gql(
    'mutation { createProject(id: "other", name: "Other") { id } }',
    {},
    ADMIN,
  );
  expect(made.errors).toBeUndefined();
  const spans = [
    // minute 0: 2 ok, 1 error (session health tool_failure)
    span(0, { session_id: 'ok-1', health_tag: 'success' }),
    span(0, { session_id: 'ok-1', health_tag: 'success' }),
    span(0, {
      session_id: 'fail-1',
      status: 'error',
      error: 'boom',
      output_result: null,
      health_tag: 'tool_failure',
    }),
    // minute 2: 2 ok, 1 error, 1 timeout (session health timeout: the server tags it)
    span(2, { session_id: 'ok-2', health_tag: 'success' }),
    span(2, { session_id: 'fail-1', health_tag: 'success' }),
    span(2, {
      session_id: 'loop-1',
      status: 'error',
      error: 'x',
      output_result: null,
      health_tag: 'loop_detected',
    }),
    span(2, {
      session_id: 'ok-2',
      status: 'timeout',
      error: 't',
      output_result: null,
      health_tag: 'success',
    }),
    // minute 5: 1 ok
    span(5, { session_id: 'ok-3', health_tag: 'success' }),
    // 30 hours ago: outside the default windows
    span(30 * 60, { session_id: 'old-1', health_tag: 'success' }),
    // another project: never in project default's counts
    span(0, { project_id: 'other', session_id: 'other-1', health_tag: 'success' }),
    span(0, {
      project_id: 'other',
      session_id: 'other-1',
      status: 'error',
      error: 'e',
      output_result: null,
    }),
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

const PER_MINUTE = `query ($p: String, $m: Int) { spansPerMinute(projectId: $p, minutes: $m) { minute spans errors } }`;

describe('spansPerMinute', () => {
  it('counts spans and failures per minute, every minute present, the current one last', async () => {
    const before = Math.floor(Date.now() / 60_000) * 60_000;
    const { data, errors } = await h.gql(PER_MINUTE, { p: 'default', m: 10 }, ADMIN);
    const after = Math.floor(Date.now() / 60_000) * 60_000;
    expect(errors).toBeUndefined();
    const series = data.spansPerMinute as { minute: string; spans: number; errors: number }[];
    expect(series).toHaveLength(10);
    const last = Date.parse(series.at(-1)?.minute ?? '');
    expect([before, after]).toContain(last);
    series.forEach((m, i) => expect(Date.parse(m.minute)).toBe(last - (9 - i) * 60_000));
    // Exact counts by minute (the query may have run a minute later than the seeding: compare by time).
    const expected = new Map(
      Object.entries(SEEDED).map(([ago, v]) => [minuteStart - Number(ago) * 60_000, v]),
    );
    for (const m of series)
      expect([m.spans, m.errors], m.minute).toEqual(expected.get(Date.parse(m.minute)) ?? [0, 0]);
    expect(series.reduce((a, m) => a + m.spans, 0)).toBe(8);
    expect(series.reduce((a, m) => a + m.errors, 0)).toBe(3);
  });

  it('defaults to 60 minutes; every project for a global key that names none', async () => {
    const { data } = await h.gql(`{ spansPerMinute { spans errors } }`, {}, ADMIN);
    expect(data.spansPerMinute).toHaveLength(60);
    const sum = (k: 'spans' | 'errors') =>
      data.spansPerMinute.reduce((a: number, m: Record<string, number>) => a + (m[k] ?? 0), 0);
    expect([sum('spans'), sum('errors')]).toEqual([10, 4]);
  });

  it('a project-bound key counts only its project; minutes out of 1-360 is a validation error', async () => {
    const { data: created } = await h.gql(
      'mutation { createApiKey(input: {name: "other viewer", role: "viewer", projectId: "other"}) { key } }',
      {},
      ADMIN,
    );
    const key = created.createApiKey.key as string;
    const { data } = await h.gql(PER_MINUTE, { m: 10 }, key);
    const sum = data.spansPerMinute.reduce((a: number, m: { spans: number }) => a + m.spans, 0);
    expect(sum).toBe(2);
    const elsewhere = await h.gql(PER_MINUTE, { p: 'default', m: 10 }, key);
    expect(elsewhere.data).toBeNull();
    expect(elsewhere.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    for (const m of [0, 361]) {
      const res = await h.gql(PER_MINUTE, { p: 'default', m }, ADMIN);
      expect(res.errors?.[0]?.extensions?.code, JSON.stringify(res)).toBe('VALIDATION');
    }
  });
});

const HEALTH = `query ($p: String, $h: Int) { sessionHealthCounts(projectId: $p, hours: $h) { healthTag sessions } }`;

describe('sessionHealthCounts', () => {
  it('counts the sessions of the window per health tag, most first', async () => {
    const { data, errors } = await h.gql(HEALTH, { p: 'default' }, ADMIN);
    expect(errors).toBeUndefined();
    expect(data.sessionHealthCounts).toEqual([
      { healthTag: 'success', sessions: 2 },
      { healthTag: 'loop_detected', sessions: 1 },
      { healthTag: 'timeout', sessions: 1 },
      { healthTag: 'tool_failure', sessions: 1 },
    ]);
    const wider = await h.gql(HEALTH, { p: 'default', h: 48 }, ADMIN);
    expect(wider.data.sessionHealthCounts[0]).toEqual({ healthTag: 'success', sessions: 3 });
  });
});
