import { HEALTH_TAGS, isoMicros, type Span } from '../model/span.ts';

/**
 * A commit group's rollup rows, aggregated here rather than by the ingest statement
 * (docs/ingest.md#derived-data): one row per session, per session tool, per lineage edge and hour,
 * and per hourly span key, as JSON for rollup-sql.ts. They are the group's contribution only if
 * every span of the group is new; the statement checks that (its insert stored all of them) and
 * otherwise folds the rows it did store, as before. Each field is what the statement computes
 * from the stored rows: the same filters, keys and measures (see insertWithRollups).
 *
 * null when a key holds a NUL character: the encoder strips those, so keys built here would not
 * be the stored ones; the statement then aggregates the group itself.
 */
export function rollupRows(batch: readonly Span[]): string | null {
  const tools = new Map<string, ToolRow>();
  const sessions = new Map<string, SessionRow>();
  const edges = new Map<string, EdgeRow>();
  const hours = new Map<string, HourRow>();
  // The group's spans fall in an hour or two: each hour's ISO text is made once.
  let hourMs = Number.NaN;
  let hour = '';
  for (const s of batch) {
    if (s.spanType === 'generic') continue;
    if (hasNul(s)) return null;
    const failed = s.status === 'error' || s.status === 'timeout';
    const us = s.startedAt.getTime() * 1000 + (s.startedAtMicros ?? 0);
    const skey = s.sessionId ?? s.traceId;
    if (skey !== null) {
      addSession(sessions, s, skey, us, failed);
      if (s.spanType === 'tool_call') addTool(tools, s, skey, us, failed);
    }
    const ms = Math.floor(s.startedAt.getTime() / 3_600_000) * 3_600_000;
    if (ms !== hourMs) [hourMs, hour] = [ms, new Date(ms).toISOString()];
    addEdge(edges, s, hour, failed);
    addHour(hours, s, hour, failed);
  }
  // Times are formatted here, once per row: a span that moves a row's first, last or end time
  // only points the row at itself. Each row is written out field by field (a rest/spread copy of
  // it cost as much as aggregating it).
  const t: object[] = [];
  for (const r of tools.values())
    t.push({
      project_id: r.project_id,
      skey: r.skey,
      server_name: r.server_name,
      tool_name: r.tool_name,
      failures: r.failures,
      last_failed: r.last_failed,
      last_started_at: startIso(r.last),
    });
  const ss: object[] = [];
  for (const r of sessions.values())
    ss.push({
      project_id: r.project_id,
      skey: r.skey,
      agent_name: r.agent_name,
      span_count: r.span_count,
      tool_calls: r.tool_calls,
      failed_calls: r.failed_calls,
      prevented_calls: r.prevented_calls,
      input_tokens: r.input_tokens,
      output_tokens: r.output_tokens,
      est_cost_usd: r.est_cost_usd,
      tag_rank: r.tag_rank,
      has_timeout: r.has_timeout,
      first_call_at: startIso(r.first),
      last_call_at: startIso(r.last),
      last_end_at: isoMicros(r.end.endedAt, r.end.endedAtMicros),
      servers_used: [...r.servers],
    });
  return JSON.stringify({ t, s: ss, l: [...edges.values()], h: [...hours.values()] });
}

interface ToolRow {
  project_id: string;
  skey: string;
  server_name: string;
  tool_name: string;
  failures: number;
  /** The latest span (last_started_at). */
  last: Span;
  last_failed: boolean;
  us: number;
}

interface SessionRow {
  project_id: string;
  skey: string;
  agent_name: string | null;
  /** The spans of first_call_at, last_call_at and last_end_at. */
  first: Span;
  last: Span;
  end: Span;
  span_count: number;
  tool_calls: number;
  failed_calls: number;
  prevented_calls: number;
  servers: Set<string>;
  input_tokens: number;
  output_tokens: number;
  est_cost_usd: number;
  tag_rank: number;
  has_timeout: boolean;
  firstUs: number;
  lastUs: number;
  endUs: number;
  /** Start of the earliest span with an agent name (the session's agent). */
  agentUs?: number;
}

interface EdgeRow {
  project_id: string;
  hour: string;
  edge_type: string;
  source: string;
  /** A handoff's raw tool name: the statement strips its arrow, as for stored rows. */
  target: string;
  calls: number;
  errors: number;
  latency_sum_ms: number;
}

interface HourRow {
  project_id: string;
  hour: string;
  span_type: string;
  agent_name: string;
  server_name: string;
  tool_name: string;
  model_id: string;
  calls: number;
  errors: number;
  latency_sum_ms: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  estimated_calls: number;
}

const K = '\0';
const hasNul = (s: Span) =>
  s.projectId.includes(K) ||
  s.serverName.includes(K) ||
  s.toolName.includes(K) ||
  s.sessionId?.includes(K) === true ||
  s.traceId?.includes(K) === true ||
  s.agentName?.includes(K) === true ||
  s.modelId?.includes(K) === true;

/** tagRankOf in rollup-sql.ts: success 1 … loop_detected 9, 0 for none. */
const tagRank = (tag: Span['healthTag']) =>
  tag === null || !HEALTH_TAGS.includes(tag) ? 0 : HEALTH_TAGS.length - HEALTH_TAGS.indexOf(tag);

const startIso = (s: Span) => isoMicros(s.startedAt, s.startedAtMicros);

function addTool(m: Map<string, ToolRow>, s: Span, skey: string, us: number, failed: boolean) {
  const key = s.projectId + K + skey + K + s.serverName + K + s.toolName;
  const r = m.get(key);
  if (!r) {
    m.set(key, {
      project_id: s.projectId,
      skey,
      server_name: s.serverName,
      tool_name: s.toolName,
      failures: failed ? 1 : 0,
      last: s,
      last_failed: failed,
      us,
    });
    return;
  }
  if (failed) r.failures++;
  if (us > r.us) {
    r.us = us;
    r.last = s;
    r.last_failed = failed;
  }
}

function addSession(
  m: Map<string, SessionRow>,
  s: Span,
  skey: string,
  us: number,
  failed: boolean,
) {
  const key = s.projectId + K + skey;
  const endUs = s.endedAt.getTime() * 1000 + (s.endedAtMicros ?? 0);
  let r = m.get(key);
  if (!r) {
    r = {
      project_id: s.projectId,
      skey,
      agent_name: null,
      first: s,
      last: s,
      end: s,
      span_count: 0,
      tool_calls: 0,
      failed_calls: 0,
      prevented_calls: 0,
      servers: new Set(),
      input_tokens: 0,
      output_tokens: 0,
      est_cost_usd: 0,
      tag_rank: 0,
      has_timeout: false,
      firstUs: us,
      lastUs: us,
      endUs,
    };
    m.set(key, r);
  } else {
    if (us < r.firstUs) [r.firstUs, r.first] = [us, s];
    if (us > r.lastUs) [r.lastUs, r.last] = [us, s];
    if (endUs > r.endUs) [r.endUs, r.end] = [endUs, s];
  }
  if (s.agentName !== null && (r.agentUs === undefined || us < r.agentUs)) {
    r.agentUs = us;
    r.agent_name = s.agentName;
  }
  r.span_count++;
  if (s.spanType === 'tool_call') {
    r.tool_calls++;
    if (failed) r.failed_calls++;
    if (s.status === 'prevented') r.prevented_calls++;
    r.servers.add(s.serverName);
  }
  r.input_tokens += s.inputTokens ?? 0;
  r.output_tokens += s.outputTokens ?? 0;
  r.est_cost_usd += s.costUsd ?? 0;
  r.tag_rank = Math.max(r.tag_rank, tagRank(s.healthTag));
  if (s.status === 'timeout') r.has_timeout = true;
}

const EDGE_TYPES: Partial<Record<Span['spanType'], string>> = {
  tool_call: 'calls',
  handoff: 'handoff',
  agent: 'run',
};

function addEdge(m: Map<string, EdgeRow>, s: Span, hour: string, failed: boolean) {
  const edgeType = EDGE_TYPES[s.spanType];
  const source = s.spanType === 'tool_call' ? s.agentName : (s.agentName ?? s.serverName);
  // llm_intent and user_message spans are neither calls nor runs: no lineage edge.
  if (edgeType === undefined || source === null || source === '') return;
  const target =
    s.spanType === 'tool_call' ? s.serverName : s.spanType === 'handoff' ? s.toolName : '';
  const key = s.projectId + K + hour + K + edgeType + K + source + K + target;
  const r = m.get(key);
  if (r) {
    r.calls++;
    if (failed) r.errors++;
    r.latency_sum_ms += s.latencyMs;
  } else
    m.set(key, {
      project_id: s.projectId,
      hour,
      edge_type: edgeType,
      source,
      target,
      calls: 1,
      errors: failed ? 1 : 0,
      latency_sum_ms: s.latencyMs,
    });
}

function addHour(m: Map<string, HourRow>, s: Span, hour: string, failed: boolean) {
  const agent = s.agentName ?? '';
  const tool = s.spanType === 'tool_call' ? s.toolName : '';
  const model = s.modelId ?? '';
  const key =
    s.projectId + K + hour + K + s.spanType + K + agent + K + s.serverName + K + tool + K + model;
  let r = m.get(key);
  if (!r) {
    r = {
      project_id: s.projectId,
      hour,
      span_type: s.spanType,
      agent_name: agent,
      server_name: s.serverName,
      tool_name: tool,
      model_id: model,
      calls: 0,
      errors: 0,
      latency_sum_ms: 0,
      input_tokens: 0,
      output_tokens: 0,
      cost_usd: 0,
      estimated_calls: 0,
    };
    m.set(key, r);
  }
  r.calls++;
  if (failed) r.errors++;
  r.latency_sum_ms += s.latencyMs;
  r.input_tokens += s.inputTokens ?? 0;
  r.output_tokens += s.outputTokens ?? 0;
  r.cost_usd += s.costUsd ?? 0;
  if (s.costEstimated === true) r.estimated_calls++;
}
