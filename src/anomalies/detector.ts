import type { Logger } from 'pino';
import { enforce } from '../auth/access.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import type { AlertSink, FireInput } from '../model/alert.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import { parseSeriesArgs, type SeriesArgs } from './filter.ts';
import {
  listAnomalies,
  loadBaselines,
  loadToolSeries,
  loadCurrentSamples,
  loadStates,
  saveStates,
  toolKey,
  type Baseline,
  type CurrentSample,
  type StoredState,
} from '../store/anomalies-repo.ts';
import type { Db } from '../store/db.ts';
import { listProjects } from '../store/projects-repo.ts';
import { nextEpisode, score } from './score.ts';
import {
  BASELINE_DAYS,
  METRICS,
  type AnomalyFilter,
  type AnomalyPoint,
  type AnomalyRecord,
  type AnomalySeverity,
  type Metric,
} from '../model/anomaly.ts';

export interface DetectorDeps {
  db: Db;
  /** Where episodes alert; without one, evaluations are still stored and listed. */
  sink?: AlertSink | undefined;
  logger?: Logger | undefined;
  now?: () => Date;
}

const HOUR_MS = 3_600_000;

const keyOf = (s: { serverName: string; toolName: string; metric: string }) =>
  `${s.serverName}\u0000${s.toolName}\u0000${s.metric}`;

/**
 * Scores each tool's hourly error rate and mean latency against its 7-day baseline (docs/anomalies.md),
 * stores the latest evaluation per tool and metric, and alerts once per episode.
 * Reads only the span_hourly rollup: the current samples and the baselines due are one statement
 * each per project, whatever the number of tools.
 */
export class AnomalyDetector {
  private readonly now: () => Date;

  constructor(private readonly deps: DetectorDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * Evaluates every project (the background job); one project's failure does not stop the others.
   * Once `signal` is aborted (serve stopping) the projects not yet begun wait for the next run.
   */
  async detectAll(now = this.now(), signal?: AbortSignal): Promise<void> {
    for (const p of await listProjects(this.deps.db, null)) {
      if (signal?.aborted) return;
      try {
        await this.detect(p.id, now);
      } catch (err) {
        this.deps.logger?.error({ err, projectId: p.id }, 'anomaly detection failed');
      }
    }
  }

  /**
   * One evaluation of a project: every tool with a current sample and a baseline, both metrics,
   * anomalous or not (severity null). Alerts that fail to fire are retried on the next run.
   */
  async detect(projectId: string, now = this.now()): Promise<AnomalyRecord[]> {
    const [samples, stored] = await Promise.all([
      loadCurrentSamples(this.deps.db, projectId, now),
      loadStates(this.deps.db, projectId),
    ]);
    const previous = new Map(stored.map((s) => [keyOf(s), s]));
    const baselines = await this.baselines(projectId, samples, previous);
    const next: StoredState[] = [];
    const failures: unknown[] = [];
    for (const sample of samples) {
      const baseline = baselines.get(toolKey(sample.serverName, sample.toolName));
      if (!baseline) continue;
      for (const metric of METRICS) {
        const key = keyOf({ ...sample, metric });
        const prev = previous.get(key);
        previous.delete(key);
        const record = evaluate(projectId, sample, baseline, metric, now, prev);
        const alerted = await this.step(record, prev?.alerted ?? null, failures);
        next.push({ ...record, alerted });
      }
    }
    // Tools with no result this time (no traffic, too short a history): their episodes end.
    const gone = [...previous.values()];
    for (const g of gone) await this.step(g, g.alerted, failures, true);
    await saveStates(this.deps.db, projectId, next, gone);
    if (failures.length > 0) throw failures[0];
    return next.map(({ alerted: _alerted, ...record }) => record);
  }

  /**
   * Each tool's baseline. It depends only on the sample hour, so while that hour stays the same the
   * stored one is reused and the 7 days of rollup rows are read once per tool and hour, not every
   * minute (spans arriving late for a baseline hour count from the next sample hour on).
   */
  private async baselines(
    projectId: string,
    samples: CurrentSample[],
    previous: Map<string, StoredState>,
  ): Promise<Map<string, Baseline>> {
    const out = new Map<string, Baseline>();
    const missing: CurrentSample[] = [];
    for (const c of samples) {
      const same = (metric: Metric) => {
        const p = previous.get(keyOf({ ...c, metric }));
        return p && p.sampleHour.getTime() === c.sampleHour.getTime() ? p : undefined;
      };
      const er = same('error_rate');
      const lat = same('latency_ms');
      if (er && lat) {
        out.set(toolKey(c.serverName, c.toolName), {
          samples: er.sampleCount,
          errorRateMean: er.baselineValue,
          errorRateStddev: er.baselineStddev,
          latencyMean: lat.baselineValue,
          latencyStddev: lat.baselineStddev,
        });
      } else {
        missing.push(c);
      }
    }
    for (const [k, b] of await loadBaselines(this.deps.db, projectId, missing)) out.set(k, b);
    return out;
  }

  /**
   * The caller's anomalous records (any role; a bound key its project, a global key the one it
   * names or every project), from the stored evaluations only (a read never evaluates).
   */
  list(
    by: Principal,
    filter: AnomalyFilter & { projectId?: string | null | undefined } = {},
  ): Promise<AnomalyRecord[]> {
    enforce(by, 'read');
    const { projectId, ...rest } = filter;
    return listAnomalies(this.deps.db, scopeProject(by, projectId), rest);
  }

  /**
   * One tool's hourly values of a metric over the last `hours` clock hours up to the current one
   * (any role; the caller's project, the one a global key names, else `default`). The metric and
   * `hours` (SERIES_HOURS_RANGE) are checked here, a 422 naming each argument.
   */
  series(
    by: Principal,
    raw: SeriesArgs & { projectId?: string | null | undefined },
  ): Promise<AnomalyPoint[]> {
    enforce(by, 'read');
    const req = parseSeriesArgs(raw);
    const project = scopeProject(by, raw.projectId) ?? DEFAULT_PROJECT;
    const to = (Math.floor(this.now().getTime() / HOUR_MS) + 1) * HOUR_MS;
    return loadToolSeries(this.deps.db, project, req, to - req.hours * HOUR_MS, to);
  }

  /** Applies the episode rules for one record; returns the episode state to store. */
  private async step(
    r: AnomalyRecord,
    alerted: AnomalySeverity | null,
    failures: unknown[],
    gone = false,
  ): Promise<AnomalySeverity | null> {
    const step = nextEpisode(alerted, gone ? null : r.zScore);
    const sink = this.deps.sink;
    if (!sink) return null;
    if (!step.resolve && step.fire === null) return step.alerted;
    const dedupKey = `anomaly:${r.serverName}:${r.toolName}:${r.metric}`;
    try {
      if (step.resolve) await sink.resolveKey(r.projectId, dedupKey);
      if (step.fire !== null) await sink.fire(alertOf(r, step.fire, dedupKey));
      return step.alerted;
    } catch (err) {
      failures.push(err);
      return alerted;
    }
  }
}

function evaluate(
  projectId: string,
  s: CurrentSample,
  b: Baseline,
  metric: Metric,
  now: Date,
  prev: StoredState | undefined,
): AnomalyRecord {
  const [current, mean, stddev] =
    metric === 'error_rate'
      ? [s.errorRate, b.errorRateMean, b.errorRateStddev]
      : [s.latencyMs, b.latencyMean, b.latencyStddev];
  const { zScore, severity } = score(metric, current, mean, stddev);
  return {
    projectId,
    serverName: s.serverName,
    toolName: s.toolName,
    metric,
    zScore,
    currentValue: current,
    baselineValue: mean,
    baselineStddev: stddev,
    sampleCount: b.samples,
    sampleHour: s.sampleHour,
    severity,
    detectedAt: now,
    // The run continues while each evaluation stays anomalous.
    since: severity === null ? null : prev?.severity ? (prev.since ?? now) : now,
  };
}

function alertOf(r: AnomalyRecord, severity: AnomalySeverity, dedupKey: string): FireInput {
  const fmt = (v: number) =>
    r.metric === 'error_rate' ? `${(v * 100).toFixed(1)}%` : `${v.toFixed(0)} ms`;
  const what = r.metric === 'error_rate' ? 'error rate' : 'mean latency';
  return {
    type: severity === 'critical' ? 'anomaly_critical' : 'anomaly_warning',
    severity,
    title: `Anomaly: ${r.serverName}/${r.toolName} ${what} ${fmt(r.currentValue)} (z ${r.zScore.toFixed(1)})`,
    message:
      `The ${what} of ${r.toolName} on ${r.serverName} was ${fmt(r.currentValue)} in the hour from ${r.sampleHour.toISOString()}, ` +
      `against a ${BASELINE_DAYS}-day hourly baseline of ${fmt(r.baselineValue)} ± ${fmt(r.baselineStddev)} over ${r.sampleCount} hours (z = ${r.zScore.toFixed(2)}).`,
    projectId: r.projectId,
    serverName: r.serverName,
    dedupKey,
    dedupScope: 'open',
    fields: {
      tool_name: r.toolName,
      metric: r.metric,
      z_score: Number(r.zScore.toFixed(3)),
      current_value: r.currentValue,
      baseline_value: r.baselineValue,
      baseline_stddev: r.baselineStddev,
      sample_count: r.sampleCount,
    },
  };
}
