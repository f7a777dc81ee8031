import { sql, type SQL } from 'drizzle-orm';
import { execute, type Db } from './db.ts';
import type { ServerKey } from './security-repo.ts';

/**
 * The scorecard's reads (docs/scorecards.md), one statement for any number of servers, all aggregates:
 * health counts and latency percentiles from the hourly and daily rollups (schema-scoring.ts), the current run
 * of failed checks from health_results, drift events and tool-call spans of the last 7 days.
 * Rollup windows are whole UTC hours ending with the current one (168 for 7 days, 24 and 720).
 */
export interface ScoreInputs extends ServerKey {
  checks7d: number;
  downChecks7d: number;
  /** Failed checks since the last check that was not down (within 7 days). */
  consecutiveFailures: number;
  /** Rollup latency bucket (schema-scoring.ts) holding the p99 of checks that were not down; null without data. */
  p99Bucket24h: number | null;
  p99Bucket30d: number | null;
  driftCompatible: number;
  driftWarning: number;
  driftBreaking: number;
  /** Tool-call spans that completed (success, error, timeout), and those that failed. */
  calls: number;
  failedCalls: number;
  callP50Ms: number | null;
  callP99Ms: number | null;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export async function loadScoreInputs(
  db: Db,
  keys: readonly ServerKey[],
  now: Date,
): Promise<ScoreInputs[]> {
  if (keys.length === 0) return [];
  // The planner's default row guesses for the JSON functions make this look expensive enough for
  // JIT, whose compilation alone takes ~200 ms: far more than the query itself.
  const { rows } = await db.transaction(async (tx) => {
    await execute(tx as unknown as Db, sql`set local jit = off`);
    return execute<Record<string, unknown>>(tx as unknown as Db, scoreInputsStatement(keys, now));
  });
  return rows.map((r) => ({
    projectId: String(r.project_id),
    serverName: String(r.server_name),
    checks7d: Number(r.checks),
    downChecks7d: Number(r.down_checks),
    consecutiveFailures: Number(r.consecutive_failures),
    p99Bucket24h: nullableNumber(r.p99_24h),
    p99Bucket30d: nullableNumber(r.p99_30d),
    driftCompatible: Number(r.drift_compatible),
    driftWarning: Number(r.drift_warning),
    driftBreaking: Number(r.drift_breaking),
    calls: Number(r.calls),
    failedCalls: Number(r.failed_calls),
    callP50Ms: nullableNumber(r.call_p50),
    callP99Ms: nullableNumber(r.call_p99),
  }));
}

/** The statement behind loadScoreInputs, for EXPLAIN in bench/scorecards.ts. */
export function scoreInputsStatement(keys: readonly ServerKey[], now: Date): SQL {
  const json = JSON.stringify(
    keys.map((k) => ({ project_id: k.projectId, server_name: k.serverName })),
  );
  const hourNow = Math.floor(now.getTime() / HOUR) * HOUR;
  const iso = (ms: number) => new Date(ms).toISOString();
  const nowIso = now.toISOString();
  const h7 = iso(hourNow - 167 * HOUR);
  const h24 = iso(hourNow - 23 * HOUR);
  const h30 = iso(hourNow - 719 * HOUR);
  const d7 = iso(now.getTime() - 7 * 24 * HOUR);
  // The 30-day latency window in three parts: the hourly rows of its first, partial day, whole
  // days from the daily rollup up to today, and today's hours, which the 24-hour window reads
  // anyway. Per server that is at most 30 days and 47 hours of buckets instead of 720 hours, with
  // the same counts (test/scoring/rollups.test.ts).
  const firstDay = iso(Math.ceil((hourNow - 719 * HOUR) / DAY) * DAY);
  const today = iso(Math.floor(hourNow / DAY) * DAY);
  return sql`select k.project_id, k.server_name, a.*, c.*, p.*, d.*, s.*
          from json_to_recordset(${json}::json) as k(project_id text, server_name text)
          cross join lateral (
            select coalesce(sum(checks), 0)::int as checks, coalesce(sum(down_checks), 0)::int as down_checks
            from health_hourly h
            where h.project_id = k.project_id and h.server_name = k.server_name and h.hour >= ${h7}::timestamptz and h.hour <= ${nowIso}::timestamptz
          ) a
          cross join lateral (
            select count(*)::int as consecutive_failures from health_results r
            where r.project_id = k.project_id and r.server_name = k.server_name and r.status = 'down'
              and r.checked_at >= ${d7}::timestamptz and r.checked_at <= ${nowIso}::timestamptz
              and r.checked_at > coalesce((
                select max(u.checked_at) from health_results u
                where u.project_id = k.project_id and u.server_name = k.server_name and u.status <> 'down'
                  and u.checked_at >= ${d7}::timestamptz and u.checked_at <= ${nowIso}::timestamptz
              ), '-infinity'::timestamptz)
          ) c
          cross join lateral (
            select min(b) filter (where tot24 > 0 and cum24 >= ceil(0.99 * tot24)) as p99_24h,
                   min(b) filter (where tot30 > 0 and cum30 >= ceil(0.99 * tot30)) as p99_30d
            from (
              select b, sum(n24) over (order by b) as cum24, sum(n24) over () as tot24,
                     sum(n30) over (order by b) as cum30, sum(n30) over () as tot30
              from (
                select l.bucket as b, coalesce(sum(l.checks) filter (where l.in24), 0) as n24,
                       coalesce(sum(l.checks) filter (where l.in30), 0) as n30
                from (
                  select t.bucket, t.checks, true as in24, t.hour >= ${today}::timestamptz as in30 from health_latency_hourly t
                  where t.project_id = k.project_id and t.server_name = k.server_name and t.hour >= ${h24}::timestamptz and t.hour <= ${nowIso}::timestamptz
                  union all
                  select d.bucket, d.checks, false, true from health_latency_daily d
                  where d.project_id = k.project_id and d.server_name = k.server_name and d.day >= ${firstDay}::timestamptz and d.day < ${today}::timestamptz
                  union all
                  select h.bucket, h.checks, false, true from health_latency_hourly h
                  where h.project_id = k.project_id and h.server_name = k.server_name and h.hour >= ${h30}::timestamptz and h.hour < ${firstDay}::timestamptz
                ) l
                group by 1
              ) per_bucket
            ) w
          ) p
          cross join lateral (
            select count(*) filter (where classification = 'COMPATIBLE')::int as drift_compatible,
                   count(*) filter (where classification = 'WARNING')::int as drift_warning,
                   count(*) filter (where classification = 'BREAKING')::int as drift_breaking
            from drift_events e
            where e.project_id = k.project_id and e.server_name = k.server_name and e.detected_at >= ${d7}::timestamptz and e.detected_at <= ${nowIso}::timestamptz
          ) d
          cross join lateral (
            select count(*)::int as calls, count(*) filter (where status <> 'success')::int as failed_calls,
                   percentile_cont(0.5) within group (order by latency_ms) as call_p50,
                   percentile_cont(0.99) within group (order by latency_ms) as call_p99
            from spans x
            where x.project_id = k.project_id and x.server_name = k.server_name and x.span_type = 'tool_call'
              and x.status in ('success', 'error', 'timeout')
              and x.started_at >= ${d7}::timestamptz and x.started_at <= ${nowIso}::timestamptz
          ) s`;
}

function nullableNumber(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}

/** The projects where a server name has any scorecard data: catalog, health history, scans. */
export async function findServerProjects(
  db: Db,
  projectId: string | null,
  serverName: string,
): Promise<string[]> {
  const p = projectId === null ? sql`true` : sql`project_id = ${projectId}`;
  const { rows } = await execute<{ project_id: string }>(
    db,
    sql`select project_id from servers where name = ${serverName} and ${p}
        union select project_id from (select project_id from health_hourly where server_name = ${serverName} and ${p} limit 1) h
        union select project_id from (select project_id from security_scans where server_name = ${serverName} and ${p} limit 1) s`,
  );
  return rows.map((r) => String(r.project_id)).sort();
}
