import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnomalyDetector } from '../../src/anomalies/detector.ts';
import { execute } from '../../src/store/db.ts';
import { call, configFile, createKey, createProject, expectStatus } from '../helpers/auth.ts';
import { serverBackends } from '../helpers/backends.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { nativeSpan } from '../helpers/spans.ts';
import { RecordingSink } from '../helpers/recording-sink.ts';

/**
 * The anomaly detector (docs/anomalies.md) on the real app and store (in-process; the last test on a listening server):
 * spans go in through POST /api/traces/spans with timestamps over the past days, the detector runs
 * with an injected clock (the background job is off: anomalies.interval_seconds 0), and what a user
 * sees is read back over REST and GraphQL. Every z below is worked out by hand beside it.
 */
const ADMIN = `sg_${'a'.repeat(63)}e`;
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
/** The current hour of the injected clock: a day back, so nothing of it is in the future. */
const H0 = Math.floor(Date.now() / HOUR) * HOUR - DAY;
const NOW = new Date(H0 + 30 * MIN);
const A = 'anom-a';
const B = 'anom-b';

/** Sample standard deviation of 100, 120, 80, 100 ms: sqrt((0 + 400 + 400 + 0) / 3). */
const SD_LAT = Math.sqrt(800 / 3);

/** The in-process app, or the listening server of the background test. */
let server: Pick<InProcessApp, 'httpUrl' | 'services'>;
let config: { path: string; remove(): void };

interface Hour {
  /** Start of the hour (ms). */
  at: number;
  /** One latency per call. */
  latencies: number[];
  /** How many of the calls (the first ones) failed. */
  errors?: number;
}

/** One tool's calls, hour by hour, as native spans. */
function spans(
  project: string,
  server_name: string,
  tool_name: string,
  hours: Hour[],
): Record<string, unknown>[] {
  return hours.flatMap((h) =>
    h.latencies.map((latency, i) => {
      const start = h.at + MIN + i * 1000;
      return nativeSpan({
        span_id: randomUUID(),
        project_id: project,
        session_id: `s-${server_name}-${h.at}`,
        server_name,
        tool_name,
        started_at: new Date(start).toISOString(),
        ended_at: new Date(start + latency).toISOString(),
        latency_ms: latency,
        status: i < (h.errors ?? 0) ? 'error' : 'success',
        error: i < (h.errors ?? 0) ? 'boom' : null,
      });
    }),
  );
}

/** Ingests spans through the native span API (POST /api/traces/spans), as an SDK would. */
async function post(batch: Record<string, unknown>[]): Promise<void> {
  expectStatus(
    await call(server.httpUrl, 'POST', '/api/traces/spans', { key: ADMIN, body: batch }),
    202,
    'ingest',
  );
}

const ingest = (project: string, server_name: string, tool_name: string, hours: Hour[]) =>
  post(spans(project, server_name, tool_name, hours));

const times = (n: number, v: number) => Array<number>(n).fill(v);
/** Baseline hours one, two, three and four days before `h`, two calls each with these mean latencies. */
const baseline = (h: number, means = [100, 120, 80, 100]): Hour[] =>
  means.map((m, i) => ({ at: h - (i + 1) * DAY, latencies: [m - 10, m + 10] }));

async function anomalies(query = '', key = ADMIN) {
  return expectStatus(
    await call(server.httpUrl, 'GET', `/api/reliability/anomalies${query}`, { key }),
    200,
    `anomalies${query}`,
  ).json as Record<string, unknown>[];
}
const find = (list: Record<string, unknown>[], server_name: string, metric: string) =>
  list.find((a) => a.server_name === server_name && a.metric === metric);

describe.each(serverBackends)('$name', ({ name, available, env }) => {
  describe.runIf(available)(
    available ? 'anomaly detection' : `anomaly detection (skipped: no ${name} in this run)`,
    () => {
      let app: InProcessApp;
      beforeAll(async () => {
        config = configFile('anomalies:\n  interval_seconds: 0\n');
        server = app = await startInProcessApp({
          ...(await env()),
          SPYGLASS_API_KEYS: ADMIN,
          SPYGLASS_CONFIG: config.path,
        });
        for (const p of [A, B, 'anom-ep']) await createProject(server.httpUrl, ADMIN, p);

        await post([
          // Latency: baseline 100, 120, 80, 100 ms; the current hour (5 calls) 150 ms and 140 ms.
          ...spans(A, 'lat', 'search', [...baseline(H0), { at: H0, latencies: times(5, 150) }]),
          ...spans(A, 'lat', 'fetch', [...baseline(H0), { at: H0, latencies: times(5, 140) }]),
          // Error rate: 10 calls an hour with 1, 0, 2, 1 errors; the current hour 4 of 10.
          ...spans(A, 'err', 'write', [
            ...[1, 0, 2, 1].map((errors, i) => ({
              at: H0 - (i + 1) * DAY,
              latencies: times(10, 50),
              errors,
            })),
            { at: H0, latencies: times(10, 50), errors: 4 },
          ]),
          // Two baseline hours only.
          ...spans(A, 'young', 'new_tool', [
            ...baseline(H0).slice(0, 2),
            { at: H0, latencies: times(5, 900), errors: 5 },
          ]),
          // Flat baseline (five hours of exactly 100 ms, no errors); now 40 calls at 125 ms, one failed.
          ...spans(A, 'flat', 'steady', [
            ...[1, 2, 3, 4, 5].map((d) => ({ at: H0 - d * DAY, latencies: times(4, 100) })),
            { at: H0, latencies: times(40, 125), errors: 1 },
          ]),
          // Two calls so far this hour (fewer than 5): the previous complete hour is the sample.
          ...spans(A, 'prev', 'slow', [
            ...baseline(H0 - HOUR),
            { at: H0 - HOUR, latencies: times(5, 150) },
            { at: H0, latencies: [1000, 1000] },
          ]),
          // Another project: the same spike, for isolation.
          ...spans(B, 'lat', 'search', [...baseline(H0), { at: H0, latencies: times(5, 150) }]),
        ]);
        await server.services.anomalies.detect(A, NOW);
      }, 180_000);

      afterAll(async () => {
        await app?.close();
        config?.remove();
      });

      it('scores mean latency against the sample standard deviation of the hourly baseline', async () => {
        const list = await anomalies(`?project_id=${A}`);
        const search = find(list, 'lat', 'latency_ms');
        // (150 − 100) / 16.33 = 3.06: critical. Population stddev (14.14) would give 3.54.
        expect(search).toMatchObject({
          tool_name: 'search',
          severity: 'critical',
          current_value: 150,
          baseline_value: 100,
          sample_count: 4,
          detected_at: NOW.toISOString(),
        });
        expect(search?.z_score).toBeCloseTo(50 / SD_LAT, 9);
        expect(search?.baseline_stddev).toBeCloseTo(SD_LAT, 9);
        expect(search?.sample_hour).toBe(new Date(H0).toISOString());
        // (140 − 100) / 16.33 = 2.45: warning.
        const fetch = list.find((a) => a.tool_name === 'fetch');
        expect(fetch).toMatchObject({
          server_name: 'lat',
          metric: 'latency_ms',
          severity: 'warning',
          current_value: 140,
        });
        expect(fetch?.z_score).toBeCloseTo(40 / SD_LAT, 9);
        // Their error rates (0 against a flat 0) are not anomalous.
        expect(find(list, 'lat', 'error_rate')).toBeUndefined();
      });

      it('scores the hourly error rate', async () => {
        const write = find(await anomalies(`?project_id=${A}`), 'err', 'error_rate');
        // Rates 0.1, 0, 0.2, 0.1: mean 0.1, stddev sqrt(0.02 / 3) = 0.0816; (0.4 − 0.1) / 0.0816 = 3.67.
        expect(write).toMatchObject({ tool_name: 'write', severity: 'critical', sample_count: 4 });
        expect(write?.current_value).toBeCloseTo(0.4, 12);
        expect(write?.baseline_value).toBeCloseTo(0.1, 12);
        expect(write?.z_score).toBeCloseTo(0.3 / Math.sqrt(0.02 / 3), 9);
      });

      it('gives nothing for a tool with fewer than 3 baseline hours', async () => {
        const records = await server.services.anomalies.detect(A, NOW);
        expect(records.filter((r) => r.serverName === 'young')).toEqual([]);
        expect(await anomalies(`?project_id=${A}&server_name=young`)).toEqual([]);
        // The others are all evaluated, anomalous or not: 5 tools × 2 metrics.
        expect(records).toHaveLength(10);
      });

      it('divides by the floors when the baseline is flat', async () => {
        const list = await anomalies(`?project_id=${A}&server_name=flat`);
        // Latency: stddev 0, floor 10 ms: (125 − 100) / 10 = 2.5. Error rate: floor 0.01: (1/40 − 0) / 0.01 = 2.5.
        expect(find(list, 'flat', 'latency_ms')).toMatchObject({
          severity: 'warning',
          baseline_stddev: 0,
          z_score: 2.5,
        });
        expect(find(list, 'flat', 'error_rate')?.z_score).toBeCloseTo(2.5, 12);
        expect(find(list, 'flat', 'error_rate')?.severity).toBe('warning');
      });

      it('uses the previous complete hour while the current one has fewer than 5 calls', async () => {
        const [slow] = await anomalies(`?project_id=${A}&server_name=prev`);
        expect(slow).toMatchObject({
          tool_name: 'slow',
          metric: 'latency_ms',
          current_value: 150,
          sample_hour: new Date(H0 - HOUR).toISOString(),
          severity: 'critical',
        });
        expect(slow?.z_score).toBeCloseTo(50 / SD_LAT, 9);
      });

      it('filters by server, severity and metric, most severe first', async () => {
        const all = await anomalies(`?project_id=${A}`);
        expect(all.map((a) => a.severity)).toEqual([...all.map((a) => a.severity)].sort());
        expect(
          (await anomalies(`?project_id=${A}&severity=warning`)).every(
            (a) => a.severity === 'warning',
          ),
        ).toBe(true);
        const errs = await anomalies(`?project_id=${A}&metric=error_rate`);
        expect(errs.map((a) => a.server_name).sort()).toEqual(['err', 'flat']);
        expect(
          (
            await anomalies(`?project_id=${A}&server_name=lat&metric=latency_ms&severity=critical`)
          ).map((a) => a.tool_name),
        ).toEqual(['search']);
      });

      it('reads without evaluating: two GETs give the same detected_at until the detector runs again', async () => {
        const first = await anomalies(`?project_id=${A}&server_name=lat`);
        const second = await anomalies(`?project_id=${A}&server_name=lat`);
        expect(second).toEqual(first);
        expect(first[0]?.detected_at).toBe(NOW.toISOString());
        const later = new Date(NOW.getTime() + MIN);
        await server.services.anomalies.detect(A, later);
        const third = await anomalies(`?project_id=${A}&server_name=lat`);
        expect(third.map((a) => a.detected_at)).toEqual(first.map(() => later.toISOString()));
        // The run that first found it is kept.
        expect(third[0]?.since).toBe(NOW.toISOString());
      });

      it('answers 422 naming an unknown severity or metric, over REST and GraphQL', async () => {
        const r = await call(
          server.httpUrl,
          'GET',
          '/api/reliability/anomalies?severity=high&metric=p99',
          { key: ADMIN },
        );
        expect(r.status).toBe(422);
        expect(r.json.detail).toEqual([
          {
            loc: ['query', 'severity'],
            msg: "Input should be 'critical', 'warning'",
            type: 'enum',
          },
          {
            loc: ['query', 'metric'],
            msg: "Input should be 'error_rate', 'latency_ms'",
            type: 'enum',
          },
        ]);
        const g = await call(server.httpUrl, 'POST', '/graphql', {
          key: ADMIN,
          body: { query: '{ anomalies(metric: "p99") { toolName } }' },
        });
        expect(g.json.errors[0].extensions).toMatchObject({
          code: 'VALIDATION',
          status: 422,
          issues: [{ loc: ['args', 'metric'] }],
        });
      });

      it('keeps projects apart', async () => {
        const viewerA = await createKey(server.httpUrl, ADMIN, { role: 'viewer', project_id: A });
        const viewerB = await createKey(server.httpUrl, ADMIN, { role: 'viewer', project_id: B });
        await server.services.anomalies.detect(B, NOW);
        // B has one anomaly (its own copy of lat/search); A's viewer sees A's, never B's.
        const seenByB = await anomalies('', viewerB.key);
        expect(seenByB.map((a) => `${a.project_id}/${a.server_name}/${a.tool_name}`)).toEqual([
          `${B}/lat/search`,
        ]);
        const seenByA = await anomalies('', viewerA.key);
        expect(seenByA.length).toBeGreaterThan(1);
        expect(seenByA.every((a) => a.project_id === A)).toBe(true);
        expect(
          (
            await call(server.httpUrl, 'GET', `/api/reliability/anomalies?project_id=${A}`, {
              key: viewerB.key,
            })
          ).status,
        ).toBe(403);
        const g = await call(server.httpUrl, 'POST', '/graphql', {
          key: viewerB.key,
          body: { query: '{ anomalies { projectId serverName toolName metric severity zScore } }' },
        });
        expect(g.json.data.anomalies).toMatchObject([
          {
            projectId: B,
            serverName: 'lat',
            toolName: 'search',
            metric: 'latency_ms',
            severity: 'critical',
          },
        ]);
        expect(g.json.data.anomalies).toHaveLength(1);
        expect(g.json.data.anomalies[0].zScore).toBeCloseTo(50 / SD_LAT, 9);
      });

      it('alerts once per episode, escalates, resolves when it clears and alerts again on the next spike', async () => {
        const sink = new RecordingSink();
        const detector = new AnomalyDetector({ db: server.services.store.db, sink });
        const P = 'anom-ep';
        const run = (at: number) => detector.detect(P, new Date(at));
        const H1 = H0 + HOUR;
        // Baseline 100, 120, 80, 100 ms; an improvement elsewhere (40 ms) is listed but never alerts.
        await ingest(P, 'fast', 'cached', [...baseline(H0), { at: H0, latencies: times(5, 40) }]);
        await ingest(P, 'ep', 'query', [...baseline(H0), { at: H0, latencies: times(5, 140) }]);
        await run(H0 + 30 * MIN); // z 2.45: warning
        await run(H0 + 31 * MIN);
        await run(H0 + 32 * MIN);
        expect(sink.events).toEqual(['fire anomaly_warning warning anomaly:ep:query:latency_ms']);
        const listed = await anomalies(`?project_id=${P}`);
        expect(find(listed, 'fast', 'latency_ms')?.z_score).toBeCloseTo(-60 / SD_LAT, 9);

        // Five more calls at 180 ms: the hour's mean is 160 ms, z 3.67: the episode escalates once.
        await ingest(P, 'ep', 'query', [{ at: H0 + 10 * MIN, latencies: times(5, 180) }]);
        await run(H0 + 40 * MIN);
        await run(H0 + 41 * MIN);
        expect(sink.events.slice(1)).toEqual([
          'resolve anomaly:ep:query:latency_ms',
          'fire anomaly_critical critical anomaly:ep:query:latency_ms',
        ]);
        expect(sink.fired.at(-1)).toMatchObject({
          projectId: P,
          serverName: 'ep',
          dedupScope: 'open',
          fields: { tool_name: 'query', metric: 'latency_ms', current_value: 160 },
        });

        // Next hour, back to 100 ms. Baseline now 100, 120, 80, 100, 160: mean 112, stddev sqrt(3680 / 4) = 30.3; z −0.4: cleared.
        await ingest(P, 'ep', 'query', [{ at: H1, latencies: times(5, 100) }]);
        await run(H1 + 20 * MIN);
        expect(sink.events.slice(3)).toEqual(['resolve anomaly:ep:query:latency_ms']);
        expect(find(await anomalies(`?project_id=${P}`), 'ep', 'latency_ms')).toBeUndefined();

        // A new spike in the same hour: mean (500 + 2000) / 10 = 250 ms, z (250 − 112) / 30.3 = 4.55: alerts again.
        await ingest(P, 'ep', 'query', [{ at: H1 + 10 * MIN, latencies: times(5, 400) }]);
        await run(H1 + 30 * MIN);
        await run(H1 + 31 * MIN);
        expect(sink.events.slice(4)).toEqual([
          'fire anomaly_critical critical anomaly:ep:query:latency_ms',
        ]);
        const again = find(await anomalies(`?project_id=${P}`), 'ep', 'latency_ms');
        expect(again?.z_score).toBeCloseTo((250 - 112) / Math.sqrt(3680 / 4), 9);

        // Two quiet hours later the tool has no sample: the episode ends and the record goes.
        await run(H1 + 2 * HOUR + 10 * MIN);
        expect(sink.events.slice(5)).toEqual(['resolve anomaly:ep:query:latency_ms']);
        expect(await anomalies(`?project_id=${P}`)).toEqual([]);
        expect(sink.fired.every((f) => f.serverName === 'ep')).toBe(true);
      });

      it("removes a deleted project's evaluations", async () => {
        const count = async () =>
          (
            await execute<{ n: number }>(
              server.services.store.db,
              sql`select count(*)::int as n from anomaly_states where project_id = ${B}`,
            )
          ).rows[0]?.n;
        expect(await count()).toBeGreaterThan(0);
        expectStatus(
          await call(server.httpUrl, 'DELETE', `/api/projects/${B}`, { key: ADMIN }),
          204,
          'delete project',
        );
        expect(await count()).toBe(0);
      });
    },
  );
});

describe('background detection', () => {
  let bg: TestServer;
  let bgConfig: { path: string; remove(): void };

  beforeAll(async () => {
    bgConfig = configFile('anomalies:\n  interval_seconds: 1\n');
    // A listening server: what is tested is the detection serve runs in the background.
    bg = await startTestServer({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_CONFIG: bgConfig.path });
  }, 180_000);

  afterAll(async () => {
    await bg?.dispose();
    bgConfig?.remove();
  });

  it('serve evaluates every project on its own, every anomalies.interval_seconds', async () => {
    server = bg; // the helpers above post to and read from `server`
    const h = Math.floor(Date.now() / HOUR) * HOUR;
    await ingest('default', 'bg', 'search', [...baseline(h), { at: h, latencies: times(5, 150) }]);
    // Waits on the stored result (a background run), polling the API, at most 20 s.
    let list: Record<string, unknown>[] = [];
    for (let i = 0; i < 200 && list.length === 0; i++) {
      list = await anomalies('?project_id=default');
      if (list.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(list).toMatchObject([
      {
        server_name: 'bg',
        tool_name: 'search',
        metric: 'latency_ms',
        severity: 'critical',
        current_value: 150,
      },
    ]);
  }, 30_000);
});
