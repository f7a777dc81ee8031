import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertSink, FireInput } from '../../src/model/alert.ts';
import { SloService } from '../../src/slos/slo-service.ts';
import { execute } from '../../src/store/db.ts';
import { call, expectStatus } from '../helpers/auth.ts';
import { backends } from '../helpers/backends.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { nativeSpan } from '../helpers/spans.ts';

/**
 * SLO status from the sessions rollup, checked against values computed by hand, and the breach
 * alert lifecycle with an injected clock and a sink that records what it is given. Local mode
 * (no keys): everything is in project `default`. On PGlite and PostgreSQL alike.
 */

const HOUR = 3_600_000;
let server: InProcessApp;
let base: string;
let seq = 0;

/** One session of `agent` starting at `start`: calls back to back, the last ending `durationMs` after the start. */
function session(
  agent: string,
  start: number,
  durationMs: number,
  statuses: ('success' | 'error')[] = ['success'],
  project = 'default',
) {
  const id = `slo-s-${seq++}`;
  return statuses.map((status, i) => {
    const at = start + i;
    const end = i === statuses.length - 1 ? start + durationMs : at + 1;
    return nativeSpan({
      project_id: project,
      span_id: `${id}-${i}`,
      session_id: id,
      trace_id: id,
      agent_name: agent,
      started_at: new Date(at).toISOString(),
      ended_at: new Date(end).toISOString(),
      latency_ms: end - at,
      status,
      error: status === 'error' ? 'boom' : null,
    });
  });
}

async function ingest(spans: Record<string, unknown>[]) {
  for (let i = 0; i < spans.length; i += 1000)
    expectStatus(
      await call(base, 'POST', '/api/traces/spans', { body: spans.slice(i, i + 1000) }),
      202,
      'ingest',
    );
}

async function createSlo(body: Record<string, unknown>, project = 'default') {
  return expectStatus(
    await call(base, 'POST', `/api/slos?project_id=${project}`, { body }),
    201,
    `create ${JSON.stringify(body)}`,
  ).json as { slo_id: string; threshold: number };
}

const statusOf = async (agent: string, project = 'default') =>
  expectStatus(
    await call(base, 'GET', `/api/slos/status?agent_name=${agent}&project_id=${project}`),
    200,
    'status',
  ).json as Record<string, unknown>[];

describe.each(backends)('SLO evaluation on $name', ({ available, env }) => {
  describe.runIf(available)('with the app', () => {
    beforeAll(async () => {
      server = await startInProcessApp({ SPYGLASS_RATE_LIMITS: 'off', ...(await env()) });
      base = server.httpUrl;
    });
    afterAll(async () => server?.close());

    describe('SLO status against hand-computed values', () => {
      it('computes the success rate and the exact p99 of 200 sessions, and no_data for an agent without sessions', async () => {
        // Sessions 1..200 last i × 10 ms. 1..20 end in a failure (tool_failure), 21..30 fail and then
        // succeed with the same tool (success_with_fallback, which counts as good): 180 of 200 = 90 %.
        // The exact p99 (percentile_disc) is the 198th duration, 1980 ms; an interpolating
        // percentile would say 1980.1 ms.
        const t0 = Date.now() - 2 * HOUR;
        const spans = [];
        for (let i = 1; i <= 200; i++) {
          const statuses: ('success' | 'error')[] =
            i <= 20 ? ['error'] : i <= 30 ? ['error', 'success'] : ['success'];
          spans.push(...session('checkout', t0 + i * 1000, i * 10, statuses));
        }
        // Another agent's sessions and an old session of this one stay out of its figures.
        spans.push(...session('other-agent', t0, 99_999, ['error']));
        spans.push(...session('checkout', Date.now() - 30 * HOUR, 50_000, ['error']));
        await ingest(spans);

        const rate = await createSlo({
          agent_name: 'checkout',
          metric: 'success_rate',
          threshold: 0.95,
        });
        expect(rate.threshold).toBe(95);
        const p99ok = await createSlo({
          agent_name: 'checkout',
          metric: 'latency_p99',
          threshold: 1980,
          window_hours: 24,
        });
        const p99bad = await createSlo({
          agent_name: 'checkout',
          metric: 'latency_p99',
          threshold: 1979.5,
        });
        const rateOk = await createSlo({
          agent_name: 'checkout',
          metric: 'success_rate',
          threshold: 90,
        });
        const ghost = await createSlo({
          agent_name: 'ghost',
          metric: 'success_rate',
          threshold: 99,
        });

        const items = await statusOf('checkout');
        const byId = new Map(items.map((i) => [i.slo_id, i]));
        expect(items).toHaveLength(4);
        expect(byId.get(rate.slo_id)).toMatchObject({
          agent_name: 'checkout',
          metric: 'success_rate',
          target: 95,
          current_value: 90,
          status: 'breached',
          sample_size: 200,
          window_hours: 24,
        });
        expect(byId.get(rateOk.slo_id)).toMatchObject({
          target: 90,
          current_value: 90,
          status: 'ok',
          sample_size: 200,
        });
        expect(byId.get(p99ok.slo_id)).toMatchObject({
          metric: 'latency_p99',
          target: 1980,
          current_value: 1980,
          status: 'ok',
          sample_size: 200,
        });
        expect(byId.get(p99bad.slo_id)).toMatchObject({
          target: 1979.5,
          current_value: 1980,
          status: 'breached',
        });
        expect(Date.parse(String(items[0]?.evaluated_at))).toBeGreaterThan(Date.now() - 60_000);

        const all = expectStatus(await call(base, 'GET', '/api/slos/status'), 200, 'all')
          .json as Record<string, unknown>[];
        expect(all.find((i) => i.slo_id === ghost.slo_id)).toEqual({
          slo_id: ghost.slo_id,
          agent_name: 'ghost',
          metric: 'success_rate',
          target: 99,
          current_value: null,
          window_hours: 24,
          status: 'no_data',
          sample_size: 0,
          evaluated_at: expect.any(String),
        });
        // A 1-hour window sees none of these sessions (all ended about 2 h ago).
        const narrow = await createSlo({
          agent_name: 'checkout',
          metric: 'latency_p99',
          threshold: 10,
          window_hours: 1,
        });
        expect((await statusOf('checkout')).find((i) => i.slo_id === narrow.slo_id)).toMatchObject({
          status: 'no_data',
          current_value: null,
          sample_size: 0,
        });
      });
    });

    describe('breach alerts', () => {
      // Its own project, so the sessions of the test above stay out of these windows.
      const P = 'slo-alerts';
      beforeAll(async () => {
        expectStatus(
          await call(base, 'POST', '/api/projects', { body: { id: P, name: 'SLO alerts' } }),
          201,
          'project',
        );
      });

      /** What an AlertSink was asked to do, in order. */
      function recordingSink(failFirstFire = false) {
        const calls: ({ fire: FireInput } | { resolveKey: string; projectId: string })[] = [];
        let failNext = failFirstFire;
        const sink: AlertSink = {
          fire: async (input) => {
            if (failNext) {
              failNext = false;
              throw new Error('inbox unavailable');
            }
            calls.push({ fire: input });
            return null;
          },
          resolveKey: async (projectId, dedupKey) => {
            calls.push({ resolveKey: dedupKey, projectId });
            return 1;
          },
        };
        return { sink, calls };
      }

      it('fires slo_breached once while breached, resolves it on recovery, and survives a restart', async () => {
        const origin = Date.now() - 20 * HOUR;
        let clock = new Date(origin);
        const { sink, calls } = recordingSink();
        const logger = pino({ level: 'silent' });
        // The server's routes and background job use services.slos: give them the clock and the sink.
        server.services.slos = new SloService({
          db: server.services.store.db,
          alerts: sink,
          logger,
          now: () => clock,
        });

        const slo = await createSlo(
          { agent_name: 'billing', metric: 'success_rate', threshold: 80, window_hours: 1 },
          P,
        );
        // 5 sessions, 2 failing: 60 % < 80 %.
        await ingest(
          [0, 1, 2, 3, 4].flatMap((i) =>
            session('billing', origin + i * 60_000, 100, i < 2 ? ['error'] : ['success'], P),
          ),
        );

        clock = new Date(origin + 10 * 60_000);
        expect(await statusOf('billing', P)).toEqual([
          expect.objectContaining({
            slo_id: slo.slo_id,
            status: 'breached',
            current_value: 60,
            sample_size: 5,
          }),
        ]);
        for (const minutes of [11, 12, 30]) {
          clock = new Date(origin + minutes * 60_000);
          await server.services.slos.evaluate(P);
          expect((await statusOf('billing', P))[0]?.status).toBe('breached');
        }
        expect(calls).toEqual([
          {
            fire: {
              type: 'slo_breached',
              severity: 'critical',
              title: 'SLO breached: billing success rate',
              message:
                'billing: success rate 60% over the last 1 h is below the 80% target (5 sessions).',
              projectId: P,
              agentName: 'billing',
              dedupKey: `slo_breached:${slo.slo_id}`,
              dedupScope: 'open',
              fields: {
                slo_id: slo.slo_id,
                metric: 'success_rate',
                target: 80,
                current_value: 60,
                sample_size: 5,
                window_hours: 1,
              },
            },
          },
        ]);

        // A restart: a new service over the same database remembers the breach and does not fire again.
        const afterRestart = recordingSink();
        await new SloService({
          db: server.services.store.db,
          alerts: afterRestart.sink,
          logger,
          now: () => clock,
        }).evaluate(P);
        expect(afterRestart.calls).toEqual([]);

        // Two hours later only good sessions fall in the 1-hour window: ok, and the alert is resolved.
        await ingest(
          [0, 1, 2].flatMap((i) =>
            session('billing', origin + 2 * HOUR + i * 60_000, 100, ['success'], P),
          ),
        );
        clock = new Date(origin + 2 * HOUR + 10 * 60_000);
        expect(await statusOf('billing', P)).toEqual([
          expect.objectContaining({ status: 'ok', current_value: 100, sample_size: 3 }),
        ]);
        await server.services.slos.evaluate(P);
        expect(calls.slice(1)).toEqual([
          { resolveKey: `slo_breached:${slo.slo_id}`, projectId: P },
        ]);

        // No sessions at all is no_data: neither a breach nor a recovery.
        clock = new Date(origin + 6 * HOUR);
        expect((await statusOf('billing', P))[0]).toMatchObject({
          status: 'no_data',
          current_value: null,
        });
        expect(calls).toHaveLength(2);

        // A new episode fires again.
        await ingest(session('billing', origin + 7 * HOUR, 100, ['error'], P));
        clock = new Date(origin + 7 * HOUR + 60_000);
        await server.services.slos.evaluate(P);
        expect(calls).toHaveLength(3);
        expect(calls[2]).toMatchObject({
          fire: {
            dedupKey: `slo_breached:${slo.slo_id}`,
            message:
              'billing: success rate 0% over the last 1 h is below the 80% target (1 session).',
          },
        });

        // Deleting the SLO deletes its state with it.
        expectStatus(
          await call(base, 'DELETE', `/api/slos/${slo.slo_id}?project_id=${P}`),
          204,
          'delete',
        );
        const { rows } = await execute<{ n: number }>(
          server.services.store.db,
          sql`select count(*)::int as n from slo_states where slo_id = ${slo.slo_id}`,
        );
        expect(rows).toEqual([{ n: 0 }]);
      });

      it('fires a breach on the next evaluation when the sink failed the first time', async () => {
        const origin = Date.now() - 15 * HOUR;
        const clock = new Date(origin + 5 * 60_000);
        const { sink, calls } = recordingSink(true);
        server.services.slos = new SloService({
          db: server.services.store.db,
          alerts: sink,
          logger: pino({ level: 'silent' }),
          now: () => clock,
        });
        const slo = await createSlo(
          { agent_name: 'latency-agent', metric: 'latency_p99', threshold: 500, window_hours: 1 },
          P,
        );
        await ingest(session('latency-agent', origin, 750, ['success'], P));

        expect(await statusOf('latency-agent', P)).toEqual([
          expect.objectContaining({ status: 'breached', current_value: 750 }),
        ]);
        expect(calls).toEqual([]);
        await server.services.slos.evaluate(P);
        expect(calls).toEqual([
          {
            fire: expect.objectContaining({
              dedupKey: `slo_breached:${slo.slo_id}`,
              message:
                'latency-agent: p99 session duration 750 ms over the last 1 h is above the 500 ms target (1 session).',
            }),
          },
        ]);
        await server.services.slos.evaluate(P);
        expect(calls).toHaveLength(1);
      });
    });
  });
});
