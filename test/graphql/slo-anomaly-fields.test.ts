import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../helpers/auth.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { nativeSpan } from '../helpers/spans.ts';

/**
 * The fields the SLOs and anomalies pages read beyond the REST shapes: SloStatus.since
 * (docs/slos.md#graphql) and anomalySeries (docs/anomalies.md#series).
 */
const ADMIN = `sg_${'d'.repeat(64)}`;
const HOUR = 3_600_000;
const hourStart = Math.floor(Date.now() / HOUR) * HOUR;
let h: InProcessApp;

/** A tool call `hoursAgo` clock hours back, a minute into that hour. */
const call = (hoursAgo: number, over: Record<string, unknown> = {}) => {
  const start = hourStart - hoursAgo * HOUR + 60_000 + Math.floor(Math.random() * 1000);
  const latency = Number(over.latency_ms ?? 100);
  return nativeSpan({
    server_name: 'series-srv',
    tool_name: 'lookup',
    started_at: new Date(start).toISOString(),
    ended_at: new Date(start + latency).toISOString(),
    latency_ms: latency,
    ...over,
  });
};

async function ingest(spans: unknown[]): Promise<void> {
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/traces/spans',
    headers: { 'content-type': 'application/json', 'x-api-key': ADMIN },
    payload: JSON.stringify(spans),
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
}

beforeAll(async () => {
  h = await startInProcessApp({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
  const made = await h.gql(
    'mutation { createProject(id: "other", name: "Other") { id } }',
    {},
    ADMIN,
  );
  expect(made.errors).toBeUndefined();
  await ingest([
    // 3 hours ago: 100 and 120 ms, no error. 2 hours ago: one failed call of 50 ms.
    call(3, { latency_ms: 100, session_id: 'sa' }),
    call(3, { latency_ms: 120, session_id: 'sa' }),
    call(2, {
      latency_ms: 50,
      status: 'error',
      error: 'boom',
      output_result: null,
      session_id: 'sb',
    }),
    // 200 hours ago: outside the default window of 170.
    call(200, { latency_ms: 999, session_id: 'sc' }),
    // The same tool in another project.
    call(2, { latency_ms: 7, project_id: 'other', session_id: 'sd' }),
    // SLO sessions: agent slo-bad only fails.
    nativeSpan({
      agent_name: 'slo-bad',
      session_id: 'bad-1',
      status: 'error',
      error: 'x',
      output_result: null,
      health_tag: 'tool_failure',
    }),
  ]);
}, 120_000);
afterAll(async () => h?.close());

const SERIES = `query S($metric: String!, $hours: Int, $projectId: String) {
  anomalySeries(serverName: "series-srv", toolName: "lookup", metric: $metric, hours: $hours, projectId: $projectId) { hour calls value } }`;

describe('anomalySeries', () => {
  it("gives the tool's hourly mean latency and error rate, oldest first, hours without calls left out", async () => {
    const lat = await h.gql(SERIES, { metric: 'latency_ms' }, ADMIN);
    expect(lat.errors).toBeUndefined();
    expect(lat.data.anomalySeries).toEqual([
      { hour: new Date(hourStart - 3 * HOUR).toISOString(), calls: 2, value: 110 },
      { hour: new Date(hourStart - 2 * HOUR).toISOString(), calls: 1, value: 50 },
    ]);
    const err = await h.gql(SERIES, { metric: 'error_rate' }, ADMIN);
    expect(err.data.anomalySeries.map((p: { value: number }) => p.value)).toEqual([0, 1]);
    // The last 3 clock hours (the current one and two before it) leave out the one 3 hours ago.
    const short = await h.gql(SERIES, { metric: 'latency_ms', hours: 3 }, ADMIN);
    expect(short.data.anomalySeries).toHaveLength(1);
  });

  it("stays in one project: another project's calls, and a bound key asking for another project", async () => {
    const other = await h.gql(SERIES, { metric: 'latency_ms', projectId: 'other' }, ADMIN);
    expect(other.data.anomalySeries).toEqual([
      { hour: new Date(hourStart - 2 * HOUR).toISOString(), calls: 1, value: 7 },
    ]);
    const bound = await createKey(h, ADMIN, { role: 'viewer', project_id: 'other' });
    const own = await h.gql(SERIES, { metric: 'latency_ms' }, bound.key);
    expect(own.data.anomalySeries.map((p: { value: number }) => p.value)).toEqual([7]);
    const refused = await h.gql(SERIES, { metric: 'latency_ms', projectId: 'default' }, bound.key);
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('refuses an unknown metric and hours out of range, naming both', async () => {
    const r = await h.gql(SERIES, { metric: 'p99', hours: 721 }, ADMIN);
    expect(
      r.errors?.[0]?.extensions?.issues.map((i: { loc: string[] }) => i.loc.join('.')),
    ).toEqual(['args.metric', 'args.hours']);
  });
});

describe('SloStatus.since', () => {
  it('is when the SLO entered its status, kept while it stays there', async () => {
    const made = await h.gql(
      'mutation { createSlo(input: { agentName: "slo-bad", metric: "success_rate", threshold: 90 }) { sloId } }',
      {},
      ADMIN,
    );
    expect(made.errors).toBeUndefined();
    const status = async () =>
      (await h.gql('{ sloStatus(agentName: "slo-bad") { status evaluatedAt since } }', {}, ADMIN))
        .data.sloStatus[0];
    const first = await status();
    expect(first).toMatchObject({ status: 'breached', since: first.evaluatedAt });
    await expect.poll(async () => (await status()).evaluatedAt).not.toBe(first.evaluatedAt);
    const second = await status();
    expect(second).toMatchObject({ status: 'breached', since: first.since });
  });
});
