import { and, asc, desc, eq, isNotNull, sql, type SQL } from 'drizzle-orm';
import {
  BASELINE_DAYS,
  type AnomalyPoint,
  MIN_BASELINE_SAMPLES,
  MIN_CURRENT_CALLS,
  type AnomalyFilter,
  type AnomalyRecord,
  type AnomalySeverity,
  type Metric,
} from '../model/anomaly.ts';
import { execute, timestamptz, type Db } from './db.ts';
import { anomalyStates } from './schema-anomalies.ts';

/** The only SQL of the anomaly detector: hourly samples from span_hourly, and the stored evaluations. */

const HOUR_MS = 3_600_000;

/** One tool's current hourly sample: the current hour once it has MIN_CURRENT_CALLS calls, else the previous one. */
export interface CurrentSample {
  serverName: string;
  toolName: string;
  sampleHour: Date;
  calls: number;
  errorRate: number;
  latencyMs: number;
}

/** Mean and sample standard deviation (n − 1) of a tool's hourly values over the 7 days before its sample hour. */
export interface Baseline {
  samples: number;
  errorRateMean: number;
  errorRateStddev: number;
  latencyMean: number;
  latencyStddev: number;
}

/**
 * Every tool's current sample, from the rollup rows of two hours (span_hourly splits a tool's hour
 * further by agent and model; they are summed here).
 */
export async function loadCurrentSamples(
  db: Db,
  projectId: string,
  now: Date,
): Promise<CurrentSample[]> {
  const current = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  const { rows } = await execute<Record<string, string | number | Date>>(
    db,
    sql`
select distinct on (server_name, tool_name) server_name, tool_name, hour, calls, errors / calls as error_rate, lat / calls as latency_ms
from (
  select server_name, tool_name, hour, sum(calls)::float8 as calls, sum(errors)::float8 as errors, sum(latency_sum_ms)::float8 as lat
  from span_hourly
  where project_id = ${projectId} and span_type = 'tool_call' and hour in (${timestamptz(current - HOUR_MS)}, ${timestamptz(current)})
  group by server_name, tool_name, hour
) h
where (hour = ${timestamptz(current)} and calls >= ${MIN_CURRENT_CALLS}) or (hour = ${timestamptz(current - HOUR_MS)} and calls > 0)
order by server_name, tool_name, hour desc`,
  );
  return rows.map((r) => ({
    serverName: String(r.server_name),
    toolName: String(r.tool_name),
    sampleHour: new Date(r.hour as string | Date),
    calls: Number(r.calls),
    errorRate: Number(r.error_rate),
    latencyMs: Number(r.latency_ms),
  }));
}

/**
 * The baselines of these tools, in one statement whatever their number: rollup rows summed per tool
 * and hour, then mean and sample standard deviation over the hours with calls in the 7 days before
 * each tool's sample hour, every hour weighing the same whatever its traffic. Tools with fewer than
 * MIN_BASELINE_SAMPLES hours are absent from the result.
 */
export async function loadBaselines(
  db: Db,
  projectId: string,
  tools: CurrentSample[],
): Promise<Map<string, Baseline>> {
  const out = new Map<string, Baseline>();
  if (tools.length === 0) return out;
  const hours = tools.map((t) => t.sampleHour.getTime());
  const targets = JSON.stringify(
    tools.map((t) => ({ s: t.serverName, t: t.toolName, h: t.sampleHour.toISOString() })),
  );
  const { rows } = await execute<Record<string, string | number | null>>(
    db,
    sql`
with target as (select s, t, h from json_to_recordset(${targets}::json) as x(s text, t text, h timestamptz)),
h as (
  select server_name, tool_name, hour, sum(errors)::float8 / sum(calls) as er, sum(latency_sum_ms)::float8 / sum(calls) as lat
  from span_hourly
  where project_id = ${projectId} and span_type = 'tool_call'
    and hour >= ${timestamptz(Math.min(...hours) - BASELINE_DAYS * 24 * HOUR_MS)} and hour < ${timestamptz(Math.max(...hours))}
    and (server_name, tool_name) in (select s, t from target)
  group by server_name, tool_name, hour
  having sum(calls) > 0
)
select x.s, x.t, count(*)::int as samples, avg(b.er) as er_mean, stddev_samp(b.er) as er_sd, avg(b.lat) as lat_mean, stddev_samp(b.lat) as lat_sd
from target x
join h b on b.server_name = x.s and b.tool_name = x.t and b.hour >= x.h - interval '${sql.raw(String(BASELINE_DAYS))} days' and b.hour < x.h
group by x.s, x.t
having count(*) >= ${MIN_BASELINE_SAMPLES}`,
  );
  for (const r of rows) {
    out.set(toolKey(String(r.s), String(r.t)), {
      samples: Number(r.samples),
      errorRateMean: Number(r.er_mean),
      errorRateStddev: Number(r.er_sd ?? 0),
      latencyMean: Number(r.lat_mean),
      latencyStddev: Number(r.lat_sd ?? 0),
    });
  }
  return out;
}

export const toolKey = (serverName: string, toolName: string) => `${serverName}\u0000${toolName}`;

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
  return (await db.select().from(anomalyStates).where(eq(anomalyStates.projectId, projectId))).map(
    toState,
  );
}

/** Writes this run's evaluations and removes the ones with no result any more, in one transaction. */
export async function saveStates(
  db: Db,
  projectId: string,
  states: StoredState[],
  gone: StoredState[],
): Promise<void> {
  await db.transaction(async (tx) => {
    if (states.length > 0) {
      // One JSON parameter instead of 14 per row: binding thousands of parameters is the slow part.
      const rows = JSON.stringify(
        states.map((r) => ({
          project_id: r.projectId,
          server_name: r.serverName,
          tool_name: r.toolName,
          metric: r.metric,
          z_score: r.zScore,
          current_value: r.currentValue,
          baseline_value: r.baselineValue,
          baseline_stddev: r.baselineStddev,
          sample_count: r.sampleCount,
          sample_hour: r.sampleHour.toISOString(),
          severity: r.severity,
          detected_at: r.detectedAt.toISOString(),
          since: r.since?.toISOString() ?? null,
          alerted: r.alerted,
        })),
      );
      await tx.execute(sql`
insert into anomaly_states select * from json_populate_recordset(null::anomaly_states, ${rows}::json)
on conflict (project_id, server_name, tool_name, metric) do update set
  z_score = excluded.z_score, current_value = excluded.current_value, baseline_value = excluded.baseline_value,
  baseline_stddev = excluded.baseline_stddev, sample_count = excluded.sample_count, sample_hour = excluded.sample_hour,
  severity = excluded.severity, detected_at = excluded.detected_at, since = excluded.since, alerted = excluded.alerted`);
    }
    for (const g of gone) {
      await tx
        .delete(anomalyStates)
        .where(
          and(
            eq(anomalyStates.projectId, projectId),
            eq(anomalyStates.serverName, g.serverName),
            eq(anomalyStates.toolName, g.toolName),
            eq(anomalyStates.metric, g.metric),
          ),
        );
    }
  });
}

/** The anomalous evaluations (severity set), most severe first; projectId null reads every project. */
export async function listAnomalies(
  db: Db,
  projectId: string | null,
  f: AnomalyFilter,
): Promise<AnomalyRecord[]> {
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
    .orderBy(
      asc(anomalyStates.severity),
      desc(sql`abs(${anomalyStates.zScore})`),
      asc(anomalyStates.serverName),
      asc(anomalyStates.toolName),
      asc(anomalyStates.metric),
    );
  return rows.map((r) => {
    const { alerted: _alerted, ...record } = toState(r);
    return record;
  });
}

/**
 * One tool's hourly value of `metric` over [from, to) (hours with calls only), summed over the
 * rollup's agents and models like the detector's samples; read through span_hourly's primary key
 * (project, hour), so at most `to − from` hours of one project's rows.
 */
export async function loadToolSeries(
  db: Db,
  projectId: string,
  tool: { serverName: string; toolName: string; metric: Metric },
  from: number,
  to: number,
): Promise<AnomalyPoint[]> {
  const value =
    tool.metric === 'error_rate'
      ? sql`sum(errors)::float8 / sum(calls)`
      : sql`sum(latency_sum_ms)::float8 / sum(calls)`;
  const { rows } = await execute<{ hour: string | Date; calls: number | string; value: number }>(
    db,
    sql`
select hour, sum(calls)::int as calls, ${value} as value
from span_hourly
where project_id = ${projectId} and hour >= ${timestamptz(from)} and hour < ${timestamptz(to)}
  and span_type = 'tool_call' and server_name = ${tool.serverName} and tool_name = ${tool.toolName}
group by hour
having sum(calls) > 0
order by hour`,
  );
  return rows.map((r) => ({
    hour: new Date(r.hour),
    calls: Number(r.calls),
    value: Number(r.value),
  }));
}
