import { sql } from 'drizzle-orm';
import { execute, type Db } from './db.ts';

/** An SLO with what the sessions rollup says about its agent within its window. */
export interface SloMeasure {
  sloId: string;
  agentName: string;
  metric: string;
  threshold: number;
  windowHours: number;
  sampleSize: number;
  /** Sessions tagged success or success_with_fallback. */
  good: number;
  /** Exact 99th percentile of session durations in ms (latency_p99 SLOs only); null without sessions. */
  p99Ms: number | null;
}

interface MeasureRow {
  slo_id: string;
  agent_name: string;
  metric: string;
  threshold: number | string;
  window_hours: number | string;
  sample_size: number | string;
  good: number | string;
  p99: number | string | null;
}

/**
 * One statement for all SLOs of a project (or of one agent): per agent and window, the agent's
 * sessions whose last call falls in (now − window_hours, now], read once through
 * sessions_agent_last_idx (project, agent, last_call_at), whatever the number of SLOs sharing
 * them; never raw spans. percentile_disc returns an actual duration, not an interpolation;
 * durations are only produced where a latency SLO needs them.
 */
export async function measureSlos(
  db: Db,
  projectId: string,
  now: Date,
  agentName?: string,
): Promise<SloMeasure[]> {
  const at = now.toISOString();
  const agentFilter = agentName === undefined ? sql`` : sql`and s.agent_name = ${agentName}`;
  const { rows } = await execute<MeasureRow>(
    db,
    sql`with groups as (
          select s.agent_name, s.window_hours, bool_or(s.metric = 'latency_p99') as with_p99
          from slos s where s.project_id = ${projectId} ${agentFilter}
          group by s.agent_name, s.window_hours
        ), measured as (
          select g.agent_name, g.window_hours, count(x.health_tag)::int as sample_size,
            count(*) filter (where x.health_tag in ('success', 'success_with_fallback'))::int as good,
            percentile_disc(0.99) within group (order by x.duration_ms) as p99
          from groups g
          left join lateral (
            select ss.health_tag,
              case when g.with_p99 then greatest(0, extract(epoch from ss.last_end_at - ss.first_call_at) * 1000)::float8 end as duration_ms
            from sessions ss
            where ss.project_id = ${projectId} and ss.agent_name = g.agent_name
              and ss.last_call_at > ${at}::timestamptz - make_interval(hours => g.window_hours)
              and ss.last_call_at <= ${at}::timestamptz
          ) x on true
          group by g.agent_name, g.window_hours
        )
        select s.slo_id, s.agent_name, s.metric, s.threshold, s.window_hours, m.sample_size, m.good,
          case when s.metric = 'latency_p99' then m.p99 end as p99
        from slos s join measured m on m.agent_name = s.agent_name and m.window_hours = s.window_hours
        where s.project_id = ${projectId} ${agentFilter}
        order by s.created_at, s.slo_id`,
  );
  return rows.map((r) => ({
    sloId: r.slo_id,
    agentName: r.agent_name,
    metric: r.metric,
    threshold: Number(r.threshold),
    windowHours: Number(r.window_hours),
    sampleSize: Number(r.sample_size),
    good: Number(r.good),
    p99Ms: r.p99 === null ? null : Number(r.p99),
  }));
}

export interface StateUpdate {
  sloId: string;
  status: string;
  currentValue: number | null;
  sampleSize: number;
}

/** An SLO's status before this evaluation (null: never evaluated) and since when its new status holds. */
export interface Recorded {
  previous: string | null;
  changedAt: Date | null;
}

/**
 * Writes the new states and returns each SLO's previous status and when the new one began. The old
 * rows are read FOR UPDATE in the same statement, so of two evaluators racing (several workers,
 * the background job and a GET), the second sees the first one's status and no transition twice.
 * SLOs deleted meanwhile are simply absent from the result.
 */
export async function recordStates(
  db: Db,
  projectId: string,
  states: readonly StateUpdate[],
  now: Date,
): Promise<Map<string, Recorded>> {
  if (states.length === 0) return new Map();
  const json = JSON.stringify(
    states.map((s) => ({
      slo_id: s.sloId,
      status: s.status,
      current_value: s.currentValue,
      sample_size: s.sampleSize,
    })),
  );
  const at = now.toISOString();
  const { rows } = await execute<{
    slo_id: string;
    previous: string | null;
    changed_at: string | Date | null;
  }>(
    db,
    sql`update slo_states st
        set status = i.status, current_value = i.current_value, sample_size = i.sample_size, evaluated_at = ${at}::timestamptz,
          changed_at = case when old.status is distinct from i.status then ${at}::timestamptz else st.changed_at end
        from jsonb_to_recordset(${json}::jsonb) as i(slo_id uuid, status text, current_value float8, sample_size int),
          (select o.slo_id, o.status from slo_states o
             where o.project_id = ${projectId} and o.slo_id in (select (e->>'slo_id')::uuid from jsonb_array_elements(${json}::jsonb) e)
             for update) old
        where st.slo_id = i.slo_id and old.slo_id = i.slo_id
        returning st.slo_id, old.status as previous, st.changed_at`,
  );
  return new Map(
    rows.map((r) => [
      r.slo_id,
      { previous: r.previous, changedAt: r.changed_at === null ? null : new Date(r.changed_at) },
    ]),
  );
}

/**
 * Puts a status back when the alert for its transition could not be fired or resolved, so the
 * next evaluation sees the transition again; only if nothing else changed the row meanwhile.
 */
export async function revertState(
  db: Db,
  sloId: string,
  from: string,
  to: string | null,
): Promise<void> {
  await execute(
    db,
    sql`update slo_states set status = ${to} where slo_id = ${sloId} and status = ${from}`,
  );
}
