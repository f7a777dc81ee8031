import { sql, type SQL } from 'drizzle-orm';
import { HEALTH_TAGS } from '../model/span.ts';

/**
 * Rows are upserted in key order, so concurrent group commits lock rollup rows in the same order
 * and cannot deadlock each other.
 *
 * The ingest statement: insert the group's spans (skipping ids already stored) and fold exactly
 * the new rows into the session, per-tool and hourly-lineage rollups, all in one statement.
 * Returns the sessions it touched, whose health tags are then recomputed (decisions §4).
 */
export function insertWithRollups(columnList: SQL, rowsJson: string): SQL {
  return sql`
with input as (select * from json_populate_recordset(null::spans, ${rowsJson}::json)),
ins as (
  insert into spans (${columnList}) select ${columnList} from input on conflict do nothing
  returning project_id, coalesce(session_id, trace_id) as skey, span_type, server_name, tool_name, agent_name,
            status, started_at, ended_at, latency_ms, input_tokens, output_tokens, cost_usd, health_tag
),
tools as (
  insert into session_tools as t (project_id, session_id, server_name, tool_name, failures, last_started_at, last_failed)
  select project_id, skey, server_name, tool_name,
         count(*) filter (where status in ('error', 'timeout')),
         max(started_at),
         (array_agg(status in ('error', 'timeout') order by started_at desc))[1]
  from ins where skey is not null and span_type = 'tool_call'
  group by project_id, skey, server_name, tool_name
  order by project_id, skey, server_name, tool_name
  on conflict (project_id, session_id, server_name, tool_name) do update set
    failures = t.failures + excluded.failures,
    last_failed = case when excluded.last_started_at >= t.last_started_at then excluded.last_failed else t.last_failed end,
    last_started_at = greatest(t.last_started_at, excluded.last_started_at)
),
sess as (
  insert into sessions as s (project_id, session_id, agent_name, first_call_at, last_call_at, last_end_at, span_count,
                             tool_calls, failed_calls, servers_used, input_tokens, output_tokens, est_cost_usd,
                             tag_rank, has_timeout, health_tag)
  select project_id, skey,
         (array_agg(agent_name order by started_at) filter (where agent_name is not null))[1],
         min(started_at), max(started_at), max(ended_at), count(*),
         count(*) filter (where span_type = 'tool_call'),
         count(*) filter (where span_type = 'tool_call' and status in ('error', 'timeout')),
         coalesce(array_agg(distinct server_name) filter (where span_type = 'tool_call'), '{}'),
         coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), coalesce(sum(cost_usd), 0),
         coalesce(max(${tagRankOf('health_tag')}), 0),
         bool_or(status = 'timeout'),
         'success'
  from ins where skey is not null
  group by project_id, skey
  order by project_id, skey
  on conflict (project_id, session_id) do update set
    agent_name = case when excluded.first_call_at < s.first_call_at then coalesce(excluded.agent_name, s.agent_name)
                      else coalesce(s.agent_name, excluded.agent_name) end,
    first_call_at = least(s.first_call_at, excluded.first_call_at),
    last_call_at = greatest(s.last_call_at, excluded.last_call_at),
    last_end_at = greatest(s.last_end_at, excluded.last_end_at),
    span_count = s.span_count + excluded.span_count,
    tool_calls = s.tool_calls + excluded.tool_calls,
    failed_calls = s.failed_calls + excluded.failed_calls,
    servers_used = array(select distinct unnest(s.servers_used || excluded.servers_used) order by 1),
    input_tokens = s.input_tokens + excluded.input_tokens,
    output_tokens = s.output_tokens + excluded.output_tokens,
    est_cost_usd = s.est_cost_usd + excluded.est_cost_usd,
    tag_rank = greatest(s.tag_rank, excluded.tag_rank),
    has_timeout = s.has_timeout or excluded.has_timeout
),
lin as (
  insert into lineage_hourly as l (project_id, hour, edge_type, source, target, calls, errors, latency_sum_ms)
  select project_id, hour, edge_type, source, target, count(*), count(*) filter (where failed), sum(latency_ms)
  from (
    select project_id, latency_ms, status in ('error', 'timeout') as failed,
           date_trunc('hour', started_at at time zone 'UTC') at time zone 'UTC' as hour,
           case span_type when 'tool_call' then 'calls' when 'handoff' then 'handoff' else 'run' end as edge_type,
           case span_type when 'tool_call' then agent_name else coalesce(agent_name, server_name) end as source,
           case span_type when 'tool_call' then server_name
                          when 'handoff' then regexp_replace(tool_name, '^\\s*(→|->)\\s*', '')
                          else '' end as target
    from ins
  ) e
  where source is not null and source <> ''
  group by project_id, hour, edge_type, source, target
  order by project_id, hour, edge_type, source, target
  on conflict (project_id, hour, edge_type, source, target) do update set
    calls = l.calls + excluded.calls,
    errors = l.errors + excluded.errors,
    latency_sum_ms = l.latency_sum_ms + excluded.latency_sum_ms
)
select distinct project_id as p, skey as s from ins where skey is not null`;
}

/** Recomputes the health tag of the given sessions from their rollup and per-tool state. */
export function refreshHealthTags(keysJson: string): SQL {
  return sql`
update sessions s set health_tag = (${tagArray()})[1 + greatest(
  s.tag_rank,
  case when s.has_timeout then ${rank('timeout')} else 0 end,
  coalesce((select case when bool_or(t.last_failed) then ${rank('tool_failure')}
                        when sum(t.failures) > 0 then ${rank('success_with_fallback')}
                        else ${rank('success')} end
            from session_tools t where t.project_id = s.project_id and t.session_id = s.session_id), ${rank('success')}))]
from json_to_recordset(${keysJson}::json) as k(p text, s text)
where s.project_id = k.p and s.session_id = k.s`;
}

/** Severity rank: success 1 … loop_detected 9 (HEALTH_TAGS is ordered most severe first). */
export function rank(tag: (typeof HEALTH_TAGS)[number]): SQL {
  return sql.raw(String(HEALTH_TAGS.length - HEALTH_TAGS.indexOf(tag)));
}

function tagRankOf(column: string): SQL {
  const cases = HEALTH_TAGS.map((t) => `when '${t}' then ${HEALTH_TAGS.length - HEALTH_TAGS.indexOf(t)}`).join(' ');
  return sql.raw(`case ${column} ${cases} else 0 end`);
}

/** array['success' (rank 0), 'success', 'success_with_fallback', …, 'loop_detected'] */
function tagArray(): SQL {
  const byRank = ['success', ...[...HEALTH_TAGS].reverse()];
  return sql.raw(`array[${byRank.map((t) => `'${t}'`).join(', ')}]`);
}
