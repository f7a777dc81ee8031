import { and, asc, desc, eq, isNotNull, sql, type SQL } from 'drizzle-orm';
import { BASELINE_DAYS, MIN_BASELINE_SAMPLES, MIN_CURRENT_CALLS, type AnomalyFilter, type AnomalyRecord, type AnomalySeverity, type Metric } from '../anomalies/types.ts';
import { execute, type Db } from './db.ts';
import { anomalyStates } from './schema-anomalies.ts';

/** The only SQL of the anomaly detector: hourly samples from span_hourly, and the stored evaluations. */

const HOUR_MS = 3_600_000;

/** One tool's current hourly sample and its baseline statistics, both metrics. */
export interface ToolSample {
  serverName: string;
  toolName: string;
  sampleHour: Date;
  calls: number;
  errorRate: number;
  latencyMs: number;
  /** Baseline hours (with calls) in the 7 days before sampleHour. */
  samples: number;
  errorRateMean: number;
  errorRateStddev: number;
  latencyMean: number;
  latencyStddev: number;
}

/**
 * Every tool of a project with a current sample and at least MIN_BASELINE_SAMPLES baseline hours,
 * in one statement: the rollup rows of the window are summed per tool and hour (span_hourly splits
 * them further by agent and model), the sample hour is chosen per tool, and mean and sample
 * standard deviation (n − 1) are taken over the hourly values, so every baseline hour weighs the
 * same whatever its traffic.
 */
export async function loadToolSamples(db: Db, projectId: string, now: Date): Promise<ToolSample[]> {
  const current = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  const at = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`;
  const { rows } = await execute<Record<string, string | number | Date>>(
    db,
    sql`
with h as (
  select server_name, tool_name, hour, sum(calls)::float8 as calls, sum(errors)::float8 as errors, sum(latency_sum_ms)::float8 as lat
  from span_hourly
  where project_id = ${projectId} and span_type = 'tool_call'
    and hour >= ${at(current - HOUR_MS - BASELINE_DAYS * 24 * HOUR_MS)} and hour <= ${at(current)}
  group by server_name, tool_name, hour
  having sum(calls) > 0
),
cur as (
  select distinct on (server_name, tool_name) server_name, tool_name, hour, calls, errors, lat
  from h
  where (hour = ${at(current)} and calls >= ${MIN_CURRENT_CALLS}) or hour = ${at(current - HOUR_MS)}
  order by server_name, tool_name, hour desc
)
select c.server_name, c.tool_name, c.hour as sample_hour, c.calls, c.errors / c.calls as error_rate, c.lat / c.calls as latency_ms,
       count(*)::int as samples,
       avg(b.errors / b.calls) as er_mean, stddev_samp(b.errors / b.calls) as er_sd,
       avg(b.lat / b.calls) as lat_mean, stddev_samp(b.lat / b.calls) as lat_sd
from cur c
join h b on b.server_name = c.server_name and b.tool_name = c.tool_name
        and b.hour >= c.hour - interval '${sql.raw(String(BASELINE_DAYS))} days' and b.hour < c.hour
group by c.server_name, c.tool_name, c.hour, c.calls, c.errors, c.lat
having count(*) >= ${MIN_BASELINE_SAMPLES}`,
  );
  return rows.map((r) => ({
    serverName: String(r.server_name),
    toolName: String(r.tool_name),
    sampleHour: new Date(r.sample_hour as string | Date),
    calls: Number(r.calls),
    errorRate: Number(r.error_rate),
    latencyMs: Number(r.latency_ms),
    samples: Number(r.samples),
    errorRateMean: Number(r.er_mean),
    errorRateStddev: Number(r.er_sd ?? 0),
    latencyMean: Number(r.lat_mean),
    latencyStddev: Number(r.lat_sd ?? 0),
  }));
}

/** A stored evaluation with its episode (the severity already alerted, or null). */
export interface StoredState extends AnomalyRecord {
  alerted: AnomalySeverity | null;
}

type Row = typeof anomalyStates.$inferSelect;

function toState(r: Row): StoredState {
  return {
    projectId: r.projectId,
    serverName: r.serverName,
    toolName: r.toolName,
    metric: r.metric as Metric,
    zScore: r.zScore,
    currentValue: r.currentValue,
    baselineValue: r.baselineValue,
    baselineStddev: r.baselineStddev,
    sampleCount: r.sampleCount,
    sampleHour: r.sampleHour,
    severity: r.severity as AnomalySeverity | null,
    detectedAt: r.detectedAt,
    since: r.since,
    alerted: r.alerted as AnomalySeverity | null,
  };
}

export async function loadStates(db: Db, projectId: string): Promise<StoredState[]> {
  return (await db.select().from(anomalyStates).where(eq(anomalyStates.projectId, projectId))).map(toState);
}

/** Writes this run's evaluations and removes the ones with no result any more, in one transaction. */
export async function saveStates(db: Db, projectId: string, states: StoredState[], gone: StoredState[]): Promise<void> {
  await db.transaction(async (tx) => {
    if (states.length > 0) {
      const excluded = (col: string) => sql.raw(`excluded.${col}`);
      await tx
        .insert(anomalyStates)
        .values(states)
        .onConflictDoUpdate({
          target: [anomalyStates.projectId, anomalyStates.serverName, anomalyStates.toolName, anomalyStates.metric],
          set: {
            zScore: excluded('z_score'),
            currentValue: excluded('current_value'),
            baselineValue: excluded('baseline_value'),
            baselineStddev: excluded('baseline_stddev'),
            sampleCount: excluded('sample_count'),
            sampleHour: excluded('sample_hour'),
            severity: excluded('severity'),
            detectedAt: excluded('detected_at'),
            since: excluded('since'),
            alerted: excluded('alerted'),
          },
        });
    }
    for (const g of gone) {
      await tx
        .delete(anomalyStates)
        .where(and(eq(anomalyStates.projectId, projectId), eq(anomalyStates.serverName, g.serverName), eq(anomalyStates.toolName, g.toolName), eq(anomalyStates.metric, g.metric)));
    }
  });
}

/** The anomalous evaluations (severity set), most severe first; projectId null reads every project. */
export async function listAnomalies(db: Db, projectId: string | null, f: AnomalyFilter): Promise<AnomalyRecord[]> {
  const where: SQL[] = [isNotNull(anomalyStates.severity)];
  if (projectId !== null) where.push(eq(anomalyStates.projectId, projectId));
  if (f.serverName !== undefined) where.push(eq(anomalyStates.serverName, f.serverName));
  if (f.metric !== undefined) where.push(eq(anomalyStates.metric, f.metric));
  if (f.severity !== undefined) where.push(eq(anomalyStates.severity, f.severity));
  // 'critical' sorts before 'warning'.
  const rows = await db
    .select()
    .from(anomalyStates)
    .where(and(...where))
    .orderBy(asc(anomalyStates.severity), desc(sql`abs(${anomalyStates.zScore})`), asc(anomalyStates.serverName), asc(anomalyStates.toolName), asc(anomalyStates.metric));
  return rows.map((r) => {
    const { alerted: _alerted, ...record } = toState(r);
    return record;
  });
}
