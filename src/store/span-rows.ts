import { sql } from 'drizzle-orm';

/** The columns the ingest path writes, in the order of both of its forms (JSON and COPY). */
export const COLUMNS = [
  'project_id',
  'span_id',
  'trace_id',
  'parent_span_id',
  'session_id',
  'span_type',
  'server_name',
  'tool_name',
  'agent_name',
  'status',
  'error',
  'started_at',
  'ended_at',
  'latency_ms',
  'input_args',
  'output_result',
  'llm_input',
  'llm_output',
  'input_tokens',
  'output_tokens',
  'model_id',
  'health_tag',
  'cost_usd',
  'cost_estimated',
  'target_agent_name',
  'finish_reason',
  'cache_read_tokens',
  'cache_creation_tokens',
  'thinking_tokens',
  'lineage_provenance',
  'lineage_status',
  'schema_version',
  'replay_of',
] as const;
/** The ingest statement's and COPY's column list: `"project_id", "span_id", …`. */
export const COLUMN_NAMES = COLUMNS.map((c) => `"${c}"`).join(', ');
export const COLUMN_LIST = sql.raw(COLUMN_NAMES);

/** How insertSpans names a stored span: its primary key, project, span id and start time (ms). */
export const storedKey = (projectId: string, spanId: string, startedMs: number): string =>
  `${projectId}\0${spanId}\0${startedMs}`;

/** Which spans of a batch were new: all of them (the usual case), or those whose storedKey is listed. */
export type StoredSpans = 'all' | ReadonlySet<string>;

/** PostgreSQL text and jsonb cannot hold NUL: both ingest forms drop it from values and keys. */
export function stripNul(v: unknown): unknown {
  if (typeof v === 'string') return v.replaceAll('\0', '');
  if (Array.isArray(v)) return v.map(stripNul);
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [k.replaceAll('\0', ''), stripNul(x)]),
    );
  }
  return v;
}
