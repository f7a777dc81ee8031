import { sql, type SQL } from 'drizzle-orm';
import { HEALTH_TAGS, type HealthTag } from '../model/span.ts';

/**
 * The ingest statement (docs/ingest.md#derived-data): insert the group's spans, skipping ids already stored,
 * and fold exactly the new rows into the per-tool, session and lineage rollups (per hour and per
 * 4-hour block) and the hourly and daily span rollups (costs, anomalies), including each touched
 * session's health tag.
 * One statement is one round trip and atomic by itself. It returns one row: how many of the
 * `spanCount` input rows it stored and, only when that is not all of them (a retried export, a
 * span sent twice), the key of each stored row as JSON [project_id, span_id, started_ms], so each
 * request can be told how many of its spans were new without a result row per span.
 *
 * The tag needs every tool of a session after this batch. The statement cannot read its own
 * upserts, so `tool_state` merges the batch with the stored rows the same way the upsert does.
 * A session's final tag is the most severe of: the span tags and timeouts it ever had (kept in
 * tag_rank / has_timeout, which only grow) and its current tool state; the batch's contribution
 * travels in the inserted row's health_tag, and ON CONFLICT merges it with the stored ranks.
 *
 * `rollups` (rollup-rows.ts): the group's rollup rows aggregated by the caller, upserted instead of
 * the statement's own aggregation when every input row was new (then the rows it inserted are the
 * input rows); otherwise the statement aggregates the rows it stored, as without them. The JS rows
 * are cheaper for PostgreSQL: it no longer sorts and groups the whole group five times.
 */
export function insertWithRollups(
  columnList: SQL,
  rowsJson: string,
  spanCount: number,
  rollups: string | null = null,
): SQL {
  // Whether the group's own rollup rows apply: given, and every span of the group was new. The
  // rows the statement aggregates itself are then none (a one-time filter), and the other way round.
  const given = rollups !== null;
  const pre = given ? sql`(select v from pre_ok)` : sql`false`;
  const from = (key: string, columns: string) =>
    given
      ? sql`union all select * from json_to_recordset((select j from pre_rows) -> '${sql.raw(key)}') as x(${sql.raw(columns)}) where ${pre}`
      : sql``;
  return sql`
with input as (select * from json_populate_recordset(null::spans, ${rowsJson}::json)),
ins as (
  insert into spans (${columnList}) select ${columnList} from input on conflict do nothing
  returning project_id, span_id, coalesce(session_id, trace_id) as skey, span_type, server_name, tool_name, agent_name,
            status, status in ('error', 'timeout') as failed, started_at, ended_at, latency_ms,
            input_tokens, output_tokens, cost_usd, cost_estimated, health_tag, model_id
),
${given ? sql`pre_ok as (select count(*) = ${spanCount}::int as v from ins), pre_rows as (select ${rollups}::json as j),` : sql``}
-- Generic spans (the HTTP and database calls of a trace, ingest.otlp_keep_all_spans) are stored
-- for the trace tree but count in no rollup: they are not tool calls, agent runs or handoffs.
rolled as (select * from ins where span_type <> 'generic' and not ${pre}),
batch_tools as (
  select project_id, skey, server_name, tool_name,
         (count(*) filter (where failed))::int as failures,
         max(started_at) as last_started_at,
         (array_agg(failed order by started_at desc))[1] as last_failed
  from rolled where skey is not null and span_type = 'tool_call'
  group by project_id, skey, server_name, tool_name
  ${from('t', 'project_id text, skey text, server_name text, tool_name text, failures int, last_started_at timestamptz, last_failed boolean')}
),
batch_sessions as (
  select project_id, skey,
         (array_agg(agent_name order by started_at) filter (where agent_name is not null))[1] as agent_name,
         min(started_at) as first_call_at, max(started_at) as last_call_at, max(ended_at) as last_end_at,
         count(*)::int as span_count,
         (count(*) filter (where span_type = 'tool_call'))::int as tool_calls,
         (count(*) filter (where span_type = 'tool_call' and failed))::int as failed_calls,
         (count(*) filter (where span_type = 'tool_call' and status = 'prevented'))::int as prevented_calls,
         coalesce(array_agg(distinct server_name) filter (where span_type = 'tool_call'), '{}') as servers_used,
         coalesce(sum(input_tokens), 0) as input_tokens, coalesce(sum(output_tokens), 0) as output_tokens,
         coalesce(sum(cost_usd), 0) as est_cost_usd,
         coalesce(max(${tagRankOf('health_tag')}), 0) as tag_rank,
         bool_or(status = 'timeout') as has_timeout
  from rolled where skey is not null
  group by project_id, skey
  ${from('s', 'project_id text, skey text, agent_name text, first_call_at timestamptz, last_call_at timestamptz, last_end_at timestamptz, span_count int, tool_calls int, failed_calls int, prevented_calls int, servers_used text[], input_tokens bigint, output_tokens bigint, est_cost_usd float8, tag_rank int, has_timeout boolean')}
),
tools as (
  insert into session_tools as t (project_id, session_id, server_name, tool_name, failures, last_started_at, last_failed)
  select project_id, skey, server_name, tool_name, failures, last_started_at, last_failed
  from batch_tools order by project_id, skey, server_name, tool_name
  on conflict (project_id, session_id, server_name, tool_name) do update set
    failures = t.failures + excluded.failures,
    last_failed = case when excluded.last_started_at >= t.last_started_at then excluded.last_failed else t.last_failed end,
    last_started_at = greatest(t.last_started_at, excluded.last_started_at)
),
tool_state as (
  select coalesce(b.project_id, t.project_id) as project_id, coalesce(b.skey, t.session_id) as skey,
         coalesce(t.failures, 0) + coalesce(b.failures, 0) as failures,
         case when t.project_id is null then b.last_failed
              when b.project_id is null then t.last_failed
              when b.last_started_at >= t.last_started_at then b.last_failed
              else t.last_failed end as last_failed
  from batch_tools b
  full join (select * from session_tools
             where (project_id, session_id) in (select project_id, skey from batch_sessions)) t
    on t.project_id = b.project_id and t.session_id = b.skey and t.server_name = b.server_name and t.tool_name = b.tool_name
),
tool_rank as (
  select project_id, skey,
         case when bool_or(last_failed) then ${rank('tool_failure')}
              when sum(failures) > 0 then ${rank('success_with_fallback')}
              else ${rank('success')} end as rank
  from tool_state group by project_id, skey
),
sess as (
  insert into sessions as s (project_id, session_id, agent_name, first_call_at, last_call_at, last_end_at, span_count,
                             tool_calls, failed_calls, prevented_calls, servers_used, input_tokens, output_tokens, est_cost_usd,
                             tag_rank, has_timeout, health_tag)
  select b.project_id, b.skey, b.agent_name, b.first_call_at, b.last_call_at, b.last_end_at, b.span_count,
         b.tool_calls, b.failed_calls, b.prevented_calls,
         ${given ? sql`array(select distinct u from unnest(b.servers_used) u order by 1)` : sql`b.servers_used`},
         b.input_tokens, b.output_tokens, b.est_cost_usd,
         b.tag_rank, b.has_timeout,
         ${tagAt(sql`greatest(b.tag_rank, case when b.has_timeout then ${rank('timeout')} else 0 end, coalesce(r.rank, ${rank('success')}))`)}
  from batch_sessions b left join tool_rank r on r.project_id = b.project_id and r.skey = b.skey
  order by b.project_id, b.skey
  on conflict (project_id, session_id) do update set
    agent_name = case when excluded.first_call_at < s.first_call_at then coalesce(excluded.agent_name, s.agent_name)
                      else coalesce(s.agent_name, excluded.agent_name) end,
    first_call_at = least(s.first_call_at, excluded.first_call_at),
    last_call_at = greatest(s.last_call_at, excluded.last_call_at),
    last_end_at = greatest(s.last_end_at, excluded.last_end_at),
    span_count = s.span_count + excluded.span_count,
    tool_calls = s.tool_calls + excluded.tool_calls,
    failed_calls = s.failed_calls + excluded.failed_calls,
    prevented_calls = s.prevented_calls + excluded.prevented_calls,
    servers_used = array(select distinct unnest(s.servers_used || excluded.servers_used) order by 1),
    input_tokens = s.input_tokens + excluded.input_tokens,
    output_tokens = s.output_tokens + excluded.output_tokens,
    est_cost_usd = s.est_cost_usd + excluded.est_cost_usd,
    tag_rank = greatest(s.tag_rank, excluded.tag_rank),
    has_timeout = s.has_timeout or excluded.has_timeout,
    health_tag = ${tagAt(sql`greatest(s.tag_rank, case when s.has_timeout then ${rank('timeout')} else 0 end, ${rankOfTag(sql`excluded.health_tag`)})`)}
),
edges as (
  select project_id, date_trunc('hour', started_at at time zone 'UTC') at time zone 'UTC' as hour,
         case span_type when 'tool_call' then 'calls' when 'handoff' then 'handoff' when 'agent' then 'run' end as edge_type,
         case span_type when 'tool_call' then agent_name else coalesce(agent_name, server_name) end as source,
         case span_type when 'tool_call' then server_name when 'handoff' then tool_name else '' end as target,
         count(*) as calls, count(*) filter (where failed) as errors, sum(latency_ms) as latency_sum_ms
  from rolled
  group by 1, 2, 3, 4, 5
  ${from('l', 'project_id text, hour timestamptz, edge_type text, source text, target text, calls bigint, errors bigint, latency_sum_ms float8')}
),
lin as (
  insert into lineage_hourly as l (project_id, hour, edge_type, source, target, calls, errors, latency_sum_ms)
  select project_id, hour, edge_type, source, target, sum(calls), sum(errors), sum(latency_sum_ms)
  from ${LINEAGE_EDGES}
  group by hour, project_id, edge_type, source, target
  order by hour, project_id, edge_type, source, target
  on conflict (hour, project_id, edge_type, source, target) do update set
    calls = l.calls + excluded.calls,
    errors = l.errors + excluded.errors,
    latency_sum_ms = l.latency_sum_ms + excluded.latency_sum_ms
),
-- The same edges per 4-hour UTC block (lineage_blocks): a group's spans fall in one block mostly,
-- so this is about as many rows as the hours above. (Read from the hours' upsert rows instead, a
-- CTE both upserts read, the statement cost PostgreSQL 14 ms more per commit: docs/benchmarks.md.)
lin_blocks as (
  insert into lineage_blocks as l (project_id, block, edge_type, source, target, calls, errors, latency_sum_ms)
  select project_id, ${LINEAGE_BLOCK_OF('hour')}, edge_type, source, target, sum(calls), sum(errors), sum(latency_sum_ms)
  from ${LINEAGE_EDGES}
  group by 2, 1, 3, 4, 5
  order by 2, 1, 3, 4, 5
  on conflict (block, project_id, edge_type, source, target) do update set
    calls = l.calls + excluded.calls,
    errors = l.errors + excluded.errors,
    latency_sum_ms = l.latency_sum_ms + excluded.latency_sum_ms
),
by_hour as (
  -- An agent or handoff span's tool is a free-text task description: '' keeps one row per agent.
  select project_id, date_trunc('hour', started_at at time zone 'UTC') at time zone 'UTC' as hour, span_type,
         coalesce(agent_name, '') as agent_name, server_name,
         case when span_type = 'tool_call' then tool_name else '' end as tool_name, coalesce(model_id, '') as model_id,
         count(*)::int as calls, (count(*) filter (where failed))::int as errors, sum(latency_ms) as latency_sum_ms,
         coalesce(sum(input_tokens), 0) as input_tokens, coalesce(sum(output_tokens), 0) as output_tokens,
         coalesce(sum(cost_usd), 0) as cost_usd, (count(*) filter (where cost_estimated))::int as estimated_calls
  from rolled
  group by 1, 2, 3, 4, 5, 6, 7
  ${from('h', 'project_id text, hour timestamptz, span_type text, agent_name text, server_name text, tool_name text, model_id text, calls int, errors int, latency_sum_ms float8, input_tokens bigint, output_tokens bigint, cost_usd float8, estimated_calls int')}
),
hourly as (
  insert into span_hourly as h (project_id, hour, span_type, agent_name, server_name, tool_name, model_id,
                                calls, errors, latency_sum_ms, input_tokens, output_tokens, cost_usd, estimated_calls)
  select * from by_hour
  order by 1, 2, 3, 4, 5, 6, 7
  on conflict (project_id, hour, span_type, agent_name, server_name, tool_name, model_id) do update set
    ${addMeasures('h')}
),
daily as (
  insert into span_daily as d (project_id, day, span_type, agent_name, server_name, tool_name, model_id,
                               calls, errors, latency_sum_ms, input_tokens, output_tokens, cost_usd, estimated_calls)
  select project_id, date_trunc('day', hour at time zone 'UTC') at time zone 'UTC', span_type, agent_name, server_name,
         tool_name, model_id, sum(calls), sum(errors), sum(latency_sum_ms), sum(input_tokens), sum(output_tokens),
         sum(cost_usd), sum(estimated_calls)
  from by_hour
  group by 1, 2, 3, 4, 5, 6, 7
  order by 1, 2, 3, 4, 5, 6, 7
  on conflict (project_id, day, span_type, agent_name, server_name, tool_name, model_id) do update set
    ${addMeasures('d')}
)
select n.stored,
       case when n.stored < ${spanCount}::int then
         (select json_agg(json_build_array(project_id, span_id, floor(extract(epoch from started_at) * 1000)::bigint)) from ins)
       end as keys
from (select count(*)::int as stored from ins) n`;
}

/**
 * The group's lineage edges (the `edges` rows, handoff targets without their arrow) as a FROM item.
 * llm_intent and user_message spans are neither calls nor runs: no lineage edge.
 */
const LINEAGE_EDGES = sql.raw(`(
    select project_id, hour, edge_type, source, calls, errors, latency_sum_ms,
           case edge_type when 'handoff' then regexp_replace(target, '^\\s*(→|->)\\s*', '') else target end as target
    from edges
  ) e
  where edge_type is not null and source is not null and source <> ''`);

/**
 * The start of the 4-hour UTC block (00:00, 04:00, … 20:00) holding an hour: lineage_blocks' key,
 * here, in its migration (drizzle/0024_lineage_blocks.sql) and in lineage-repo.ts's LINEAGE_BLOCK_MS.
 */
export const LINEAGE_BLOCK_OF = (hour: string): SQL =>
  sql.raw(`date_bin('4 hours', ${hour}, timestamptz '2000-01-01 00:00:00+00')`);

/** `calls = t.calls + excluded.calls, …` for every measure of span_hourly / span_daily. */
function addMeasures(alias: string): SQL {
  const measures = [
    'calls',
    'errors',
    'latency_sum_ms',
    'input_tokens',
    'output_tokens',
    'cost_usd',
    'estimated_calls',
  ];
  return sql.raw(measures.map((m) => `${m} = ${alias}.${m} + excluded.${m}`).join(',\n    '));
}

/** Severity rank: success 1 … loop_detected 9 (HEALTH_TAGS is ordered most severe first). */
export function rank(tag: HealthTag): SQL {
  return sql.raw(String(HEALTH_TAGS.length - HEALTH_TAGS.indexOf(tag)));
}

/** Tags by rank, index 0 unused: array['success', 'success', 'success_with_fallback', …, 'loop_detected'] */
const BY_RANK = sql.raw(
  `array['success', ${[...HEALTH_TAGS]
    .reverse()
    .map((t) => `'${t}'`)
    .join(', ')}]`,
);

/** The tag of a rank expression. */
function tagAt(rankExpr: SQL): SQL {
  return sql`(${BY_RANK})[1 + ${rankExpr}]`;
}

/** The rank of a tag expression (0 for none). */
function rankOfTag(tagExpr: SQL): SQL {
  return sql`coalesce(array_position(${BY_RANK}, ${tagExpr}) - 1, 0)`;
}

function tagRankOf(column: string): SQL {
  const cases = HEALTH_TAGS.map(
    (t) => `when '${t}' then ${HEALTH_TAGS.length - HEALTH_TAGS.indexOf(t)}`,
  ).join(' ');
  return sql.raw(`case ${column} ${cases} else 0 end`);
}
