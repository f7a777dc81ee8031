import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  countOpen,
  deleteOldAlerts,
  findAlert,
  findAlertConfig,
  insertAlert,
  listInbox,
  resolveByKey,
  saveAlertConfig,
  setDelivery,
  toAlert,
  updateAlert,
  wakeSnoozed,
  type NewAlertRow,
} from '../../../src/store/alerts-repo.ts';
import {
  listAnomalies,
  loadBaselines,
  loadCurrentSamples,
  loadStates,
  loadToolSeries,
  saveStates,
  toolKey,
  type StoredState,
} from '../../../src/store/anomalies-repo.ts';
import { measureSlos, recordStates, revertState } from '../../../src/store/slo-eval-repo.ts';
import {
  deleteSloRow,
  findSloRow,
  insertSloRow,
  listSloProjects,
  listSloRows,
  updateSloRow,
  type SloRow,
} from '../../../src/store/slos-repo.ts';
import { insertSpans } from '../../../src/store/spans-repo.ts';
import { backends } from '../../helpers/backends.ts';
import { HOSTILE, hourAgo, project, useRepoStore } from '../../helpers/repo-store.ts';
import { span } from '../../helpers/spans.ts';

function alertRow(projectId: string, firedAt: Date, over: Partial<NewAlertRow> = {}): NewAlertRow {
  return {
    id: randomUUID(),
    projectId,
    type: 'agent_failure',
    severity: 'warning',
    title: 'title',
    message: 'message',
    serverName: null,
    agentName: 'planner',
    sessionId: null,
    dedupKey: `k-${randomUUID()}`,
    status: 'firing',
    firedAt,
    fields: {},
    delivery: 'pending',
    ...over,
  };
}

function slo(projectId: string, createdAt: Date, over: Partial<SloRow> = {}): SloRow {
  return {
    sloId: randomUUID(),
    projectId,
    agentName: 'planner',
    metric: 'success_rate',
    threshold: 90,
    windowHours: 24,
    createdAt,
    updatedAt: createdAt,
    ...over,
  };
}

/** The alert inbox, SLOs and their evaluation, and anomaly states on each driver. */
describe.each(backends)('$name', ({ name, available }) => {
  describe.runIf(available)(
    available ? 'alert, SLO and anomaly repositories' : `skipped: no ${name}`,
    () => {
      const db = useRepoStore(name);
      const t0 = hourAgo(2);
      const at = (ms: number) => new Date(t0.getTime() + ms);

      it('stores an alert with hostile text as sent and makes one open alert per key', async () => {
        const p = project();
        const row = alertRow(p, at(0), {
          title: HOSTILE,
          message: HOSTILE,
          dedupKey: HOSTILE,
          fields: { [HOSTILE]: HOSTILE, n: 1 },
        });
        const stored = await insertAlert(db(), row, false);
        expect(stored).not.toBeNull();
        const back = toAlert((await findAlert(db(), p, row.id))!, at(1));
        expect(back).toMatchObject({
          title: HOSTILE,
          message: HOSTILE,
          fields: { [HOSTILE]: HOSTILE, n: 1 },
          status: 'firing',
        });
        // a second open alert of the key is not made, in this project; another project has its own
        expect(
          await insertAlert(db(), alertRow(p, at(1), { dedupKey: HOSTILE }), false),
        ).toBeNull();
        expect(
          await insertAlert(db(), alertRow(project(), at(1), { dedupKey: HOSTILE }), false),
        ).not.toBeNull();
        // once resolved, the key may fire again
        expect(await resolveByKey(db(), p, HOSTILE, at(2))).toBe(1);
        expect(
          await insertAlert(db(), alertRow(p, at(3), { dedupKey: HOSTILE }), false),
        ).not.toBeNull();
        expect(await findAlert(db(), project(), row.id)).toBeUndefined();
      });

      it('fires a forever-deduplicated key once, even after it is resolved', async () => {
        const p = project();
        expect(
          await insertAlert(db(), alertRow(p, at(0), { dedupKey: 'once' }), true),
        ).not.toBeNull();
        await resolveByKey(db(), p, 'once', at(1));
        expect(await insertAlert(db(), alertRow(p, at(2), { dedupKey: 'once' }), true)).toBeNull();
        expect(
          await insertAlert(db(), alertRow(project(), at(2), { dedupKey: 'once' }), true),
        ).not.toBeNull();
      });

      it('moves an alert only from the status it still has', async () => {
        const p = project();
        const row = alertRow(p, at(0));
        await insertAlert(db(), row, false);
        const acked = await updateAlert(db(), p, row.id, 'firing', {
          status: 'acknowledged',
          acknowledgedAt: at(1),
        });
        expect(acked?.status).toBe('acknowledged');
        expect(
          await updateAlert(db(), p, row.id, 'firing', { status: 'resolved' }),
        ).toBeUndefined();
        expect(
          await updateAlert(db(), project(), row.id, 'acknowledged', { status: 'resolved' }),
        ).toBeUndefined();
        await setDelivery(db(), row.id, 'failed', 'webhook 500', 3);
        const back = toAlert((await findAlert(db(), p, row.id))!, at(2));
        expect(back).toMatchObject({
          status: 'acknowledged',
          acknowledgedAt: at(1),
          delivery: 'failed',
          deliveryError: 'webhook 500',
        });
      });

      it('pages the inbox newest first, reads an ended snooze as firing, and counts open alerts', async () => {
        const p = project();
        const rows = [0, 1, 2, 3, 4].map((i) =>
          alertRow(p, at(i * 1000), { severity: i % 2 ? 'critical' : 'warning' }),
        );
        for (const r of rows) await insertAlert(db(), r, false);
        await updateAlert(db(), p, rows[0]!.id, 'firing', {
          status: 'snoozed',
          snoozedUntil: at(10_000),
        });
        await updateAlert(db(), p, rows[1]!.id, 'firing', {
          status: 'resolved',
          resolvedAt: at(1500),
        });
        const statuses = ['firing', 'acknowledged', 'snoozed'] as const;
        const seen: string[] = [];
        let before: { time: Date; id: string } | undefined;
        for (let i = 0; i < 5; i++) {
          const page = await listInbox(
            db(),
            { projectId: p, statuses, limit: 2, before },
            at(5000),
          );
          seen.push(...page.map((r) => r.id));
          const last = page.at(-1);
          if (!last) break;
          before = { time: last.firedAt, id: last.id };
        }
        expect(seen).toEqual([rows[4]!.id, rows[3]!.id, rows[2]!.id, rows[0]!.id]);
        // before the snooze ends it is snoozed; after, firing (without the waker having run)
        const firingNow = async (now: Date) =>
          (await listInbox(db(), { projectId: p, statuses: ['firing'], limit: 10 }, now)).map(
            (r) => r.id,
          );
        expect(await firingNow(at(5000))).not.toContain(rows[0]!.id);
        expect(await firingNow(at(20_000))).toContain(rows[0]!.id);
        expect(toAlert((await findAlert(db(), p, rows[0]!.id))!, at(20_000))).toMatchObject({
          status: 'firing',
          snoozedUntil: null,
        });
        const critical = await listInbox(
          db(),
          { projectId: p, statuses, severity: 'critical', limit: 10 },
          at(5000),
        );
        expect(critical.map((r) => r.id)).toEqual([rows[3]!.id]);
        expect(
          (await countOpen(db(), p, at(5000))).sort((a, b) =>
            (a.status + a.severity).localeCompare(b.status + b.severity),
          ),
        ).toEqual([
          { status: 'firing', severity: 'critical', n: 1 },
          { status: 'firing', severity: 'warning', n: 2 },
          { status: 'snoozed', severity: 'warning', n: 1 },
        ]);
        expect(await countOpen(db(), project(), at(5000))).toEqual([]);
        expect(await wakeSnoozed(db(), at(20_000))).toBeGreaterThanOrEqual(1);
        expect((await findAlert(db(), p, rows[0]!.id))?.status).toBe('firing');
      });

      it('retention removes resolved alerts and dedup keys older than the cutoff', async () => {
        const p = project();
        const old = new Date('2020-01-01T00:00:00Z');
        const gone = alertRow(p, old, { dedupKey: 'old' });
        await insertAlert(db(), gone, true);
        await resolveByKey(db(), p, 'old', old);
        const open = alertRow(p, old);
        await insertAlert(db(), open, false);
        expect(
          await deleteOldAlerts(db(), new Date('2020-02-01T00:00:00Z')),
        ).toBeGreaterThanOrEqual(1);
        expect(await findAlert(db(), p, gone.id)).toBeUndefined();
        expect(await findAlert(db(), p, open.id)).toBeDefined();
        // its forever key is gone too: the key may fire again
        expect(
          await insertAlert(db(), alertRow(p, at(0), { dedupKey: 'old' }), true),
        ).not.toBeNull();
      });

      it('saves and replaces a project alert config', async () => {
        const p = project();
        expect(await findAlertConfig(db(), p)).toBeUndefined();
        await saveAlertConfig(db(), {
          projectId: p,
          alertTypes: { agent_failure: false },
          chatWebhook: 'https://hooks.example/a',
          updatedAt: at(0),
        });
        await saveAlertConfig(db(), {
          projectId: p,
          alertTypes: { slo_breached: true },
          chatWebhook: null,
          updatedAt: at(1),
        });
        expect(await findAlertConfig(db(), p)).toEqual({
          projectId: p,
          alertTypes: { slo_breached: true },
          chatWebhook: null,
          updatedAt: at(1),
        });
        expect(await findAlertConfig(db(), project())).toBeUndefined();
      });

      it('creates SLOs up to the project limit, updates and deletes them, per project', async () => {
        const p = project();
        const a = slo(p, at(0));
        const b = slo(p, at(1), { agentName: 'coder', metric: 'latency_p99', threshold: 500 });
        expect(await insertSloRow(db(), a, 2)).toEqual(a);
        expect(await insertSloRow(db(), b, 2)).toEqual(b);
        expect(await insertSloRow(db(), slo(p, at(2)), 2)).toBeUndefined();
        expect(await insertSloRow(db(), slo(project(), at(2)), 2)).toBeDefined();
        expect(await listSloRows(db(), p)).toEqual([a, b]);
        expect(await listSloRows(db(), p, 'coder')).toEqual([b]);
        const fields = {
          agentName: 'planner',
          metric: 'success_rate',
          threshold: 99.5,
          windowHours: 168,
        };
        expect(await updateSloRow(db(), p, a.sloId, fields, at(5))).toEqual({
          ...a,
          ...fields,
          updatedAt: at(5),
        });
        expect(await updateSloRow(db(), project(), a.sloId, fields, at(5))).toBeUndefined();
        expect(await findSloRow(db(), project(), a.sloId)).toBeUndefined();
        expect(await listSloProjects(db())).toContain(p);
        expect(await deleteSloRow(db(), project(), a.sloId)).toBe(false);
        expect(await deleteSloRow(db(), p, a.sloId)).toBe(true);
        expect(await findSloRow(db(), p, a.sloId)).toBeUndefined();
        // its state went with it: recording one for it changes nothing
        expect(
          await recordStates(
            db(),
            p,
            [{ sloId: a.sloId, status: 'met', currentValue: 1, sampleSize: 1 }],
            at(6),
          ),
        ).toEqual(new Map());
      });

      it('measures SLOs from the sessions rollup and records each status change once', async () => {
        const p = project();
        const ok = slo(p, at(0));
        const lat = slo(p, at(1), { metric: 'latency_p99', threshold: 100 });
        await insertSloRow(db(), ok, 10);
        await insertSloRow(db(), lat, 10);
        await insertSpans(db(), [
          span(p, at(0), { sessionId: 'good', latencyMs: 50, endedAt: at(50) }),
          span(p, at(1000), { sessionId: 'bad', status: 'error', endedAt: at(1200) }),
          span(p, at(0), { sessionId: 'other-agent', agentName: 'coder' }),
        ]);
        const now = new Date(Date.now() + 1000);
        const measures = await measureSlos(db(), p, now);
        expect(measures.map((m) => [m.sloId, m.sampleSize, m.good, m.p99Ms])).toEqual([
          [ok.sloId, 2, 1, null],
          [lat.sloId, 2, 1, 200],
        ]);
        expect(await measureSlos(db(), p, now, 'coder')).toEqual([]);
        const first = await recordStates(
          db(),
          p,
          [{ sloId: ok.sloId, status: 'breached', currentValue: 50, sampleSize: 2 }],
          at(10),
        );
        expect(first.get(ok.sloId)).toEqual({ previous: null, changedAt: at(10) });
        const same = await recordStates(
          db(),
          p,
          [{ sloId: ok.sloId, status: 'breached', currentValue: 40, sampleSize: 3 }],
          at(20),
        );
        expect(same.get(ok.sloId)).toEqual({ previous: 'breached', changedAt: at(10) });
        // another project's evaluator cannot write this project's state
        expect(
          await recordStates(
            db(),
            project(),
            [{ sloId: ok.sloId, status: 'met', currentValue: 1, sampleSize: 1 }],
            at(30),
          ),
        ).toEqual(new Map());
        await revertState(db(), ok.sloId, 'breached', null);
        const again = await recordStates(
          db(),
          p,
          [{ sloId: ok.sloId, status: 'breached', currentValue: 40, sampleSize: 3 }],
          at(40),
        );
        expect(again.get(ok.sloId)).toEqual({ previous: null, changedAt: at(40) });
      });

      it('reads hourly tool samples and baselines from the rollups, and stores evaluations', async () => {
        const p = project();
        const now = new Date();
        const batch = [];
        for (let h = 1; h <= 4; h++) {
          for (let i = 0; i < 5; i++) {
            batch.push(
              span(p, new Date(hourAgo(h, now.getTime()).getTime() + i * 1000), {
                latencyMs: 10 * h,
                status: i === 0 && h === 1 ? 'error' : 'success',
              }),
            );
          }
        }
        await insertSpans(db(), [...batch, span(project(), hourAgo(1, now.getTime()))]);
        const samples = await loadCurrentSamples(db(), p, now);
        expect(samples).toEqual([
          {
            serverName: 'filesystem',
            toolName: 'read_file',
            sampleHour: hourAgo(1, now.getTime()),
            calls: 5,
            errorRate: 0.2,
            latencyMs: 10,
          },
        ]);
        const baselines = await loadBaselines(db(), p, samples);
        expect(baselines.get(toolKey('filesystem', 'read_file'))).toMatchObject({
          samples: 3,
          errorRateMean: 0,
          latencyMean: 30,
          latencyStddev: 10,
        });
        const series = await loadToolSeries(
          db(),
          p,
          { serverName: 'filesystem', toolName: 'read_file', metric: 'latency_ms' },
          hourAgo(4, now.getTime()).getTime(),
          now.getTime(),
        );
        expect(series.map((x) => x.value)).toEqual([40, 30, 20, 10]);

        const state = (
          metric: 'error_rate' | 'latency_ms',
          severity: StoredState['severity'],
          z: number,
        ): StoredState => ({
          projectId: p,
          serverName: 'filesystem',
          toolName: 'read_file',
          metric,
          zScore: z,
          currentValue: 1,
          baselineValue: 0,
          baselineStddev: 0.1,
          sampleCount: 3,
          sampleHour: hourAgo(1, now.getTime()),
          severity,
          detectedAt: now,
          since: severity ? now : null,
          alerted: null,
        });
        await saveStates(
          db(),
          p,
          [state('error_rate', 'warning', 2.5), state('latency_ms', 'critical', -4)],
          [],
        );
        await saveStates(db(), p, [state('error_rate', 'critical', 3.5)], []);
        const listed = await listAnomalies(db(), p, {});
        expect(listed.map((a) => [a.metric, a.severity, a.zScore])).toEqual(
          [
            ['error_rate', 'critical', 3.5],
            ['latency_ms', 'critical', -4],
          ].sort((a, b) => Math.abs(Number(b[2])) - Math.abs(Number(a[2]))),
        );
        expect(await listAnomalies(db(), project(), {})).toEqual([]);
        await saveStates(db(), p, [], [state('latency_ms', null, 0)]);
        expect((await loadStates(db(), p)).map((s) => s.metric)).toEqual(['error_rate']);
      });
    },
  );
});
