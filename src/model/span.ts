/** The one span model every receiver normalises into (docs/ingest.md#native-spans). */
import { HEALTH_TAGS, type HealthTag } from './health-tags.ts';

export { HEALTH_TAGS, type HealthTag };
export const SPAN_STATUSES = ['success', 'error', 'timeout', 'prevented'] as const;
/**
 * `llm_intent` (a tool call an LLM asked for; the tool call that follows names it as parent) and
 * `user_message` (a user's turn in a session) are LangSight's: stored and shown in trees, but
 * neither a tool call nor an agent run in counts, lineage or costs. `generic`: a span around the
 * others (HTTP, database), kept for the trace tree only (docs/ingest.md).
 */
export const SPAN_TYPES = [
  'tool_call',
  'agent',
  'handoff',
  'llm_intent',
  'user_message',
  'generic',
] as const;

export type SpanStatus = (typeof SPAN_STATUSES)[number];
export type SpanType = (typeof SPAN_TYPES)[number];

export interface Span {
  spanId: string;
  traceId: string | null;
  parentSpanId: string | null;
  sessionId: string | null;
  projectId: string;
  spanType: SpanType;
  serverName: string;
  toolName: string;
  agentName: string | null;
  status: SpanStatus;
  error: string | null;
  startedAt: Date;
  endedAt: Date;
  /** Microseconds past startedAt's millisecond (0-999): Date holds ms, PostgreSQL and senders µs. */
  startedAtMicros?: number;
  endedAtMicros?: number;
  latencyMs: number;
  inputArgs: Record<string, unknown> | null;
  outputResult: string | null;
  llmInput: string | null;
  llmOutput: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  modelId: string | null;
  healthTag: HealthTag | null;
  /** Cost in USD set at ingest: LLM tokens × the model's price, or a tool-cost rule (docs/costs.md#how-a-span-is-priced). */
  costUsd: number | null;
  /** True when the model had no price and the unknown-model price was used. */
  costEstimated: boolean | null;
  // LangSight's further fields (drizzle/0022); optional so receivers that never see them need not set them.
  /** A handoff's target agent. */
  targetAgentName?: string | null;
  /** Why the LLM stopped (`end_turn`, `tool_use`, `max_tokens`, …). */
  finishReason?: string | null;
  /** Prompt tokens read from the provider's cache, apart from input_tokens (priced at the model's cache-read price). */
  cacheReadTokens?: number | null;
  /** Prompt tokens written to the cache, apart from input_tokens (priced at the cache-write price). */
  cacheCreationTokens?: number | null;
  /** Reasoning tokens, apart from output_tokens (priced as output). */
  thinkingTokens?: number | null;
  lineageProvenance?: string | null;
  lineageStatus?: string | null;
  /** The sender's span schema version. */
  schemaVersion?: string | null;
  /** The span_id this span re-runs. */
  replayOf?: string | null;
}

export const DEFAULT_PROJECT = 'default';

/**
 * ISO 8601 in UTC with microseconds (`…28.410233Z`) when the time has any below the millisecond,
 * else the usual milliseconds (`…28.410Z`).
 */
export function isoMicros(d: Date, micros: number | undefined): string {
  // Spans come in runs within a second: the text up to the second is made once per second seen
  // last (toISOString was the ingest path's costliest call: two per span stored).
  const ms = d.getTime();
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    const iso = d.toISOString(); // throws on an invalid Date, as before
    isoPrefix = iso.slice(0, -4);
    isoSecond = second;
  }
  const milli = ms - second * 1000;
  const frac = milli < 10 ? `00${milli}` : milli < 100 ? `0${milli}` : String(milli);
  return micros ? `${isoPrefix}${frac}${String(micros).padStart(3, '0')}Z` : `${isoPrefix}${frac}Z`;
}
let isoSecond = Number.NaN;
/** `2026-11-27T01:25:15.`: toISOString of isoSecond without its milliseconds. */
let isoPrefix = '';

/** The microseconds below the millisecond of an ISO 8601 time (`.410233` → 233; none → 0). */
export function subMillisecondMicros(s: string): number {
  const m = /[T ]\d\d:\d\d:\d\d\.(\d+)/.exec(s);
  const digits = m?.[1] ?? '';
  return digits.length <= 3 ? 0 : Number(digits.slice(3, 6).padEnd(3, '0'));
}

/**
 * The spec's snake_case JSON form of a span (REST). One object literal with every field (no spread
 * of clientFieldsJson, whose copy took a third of a session tree's mapping), in the same key order.
 */
export function toSpanJson(s: Span) {
  return {
    span_id: s.spanId,
    trace_id: s.traceId,
    parent_span_id: s.parentSpanId,
    session_id: s.sessionId,
    project_id: s.projectId,
    span_type: s.spanType,
    server_name: s.serverName,
    tool_name: s.toolName,
    agent_name: s.agentName,
    status: s.status,
    error: s.error,
    started_at: isoMicros(s.startedAt, s.startedAtMicros),
    ended_at: isoMicros(s.endedAt, s.endedAtMicros),
    latency_ms: s.latencyMs,
    input_args: s.inputArgs,
    output_result: s.outputResult,
    llm_input: s.llmInput,
    llm_output: s.llmOutput,
    input_tokens: s.inputTokens,
    output_tokens: s.outputTokens,
    model_id: s.modelId,
    health_tag: s.healthTag,
    cost_usd: s.costUsd,
    cost_estimated: s.costEstimated,
    target_agent_name: s.targetAgentName ?? null,
    finish_reason: s.finishReason ?? null,
    cache_read_tokens: s.cacheReadTokens ?? null,
    cache_creation_tokens: s.cacheCreationTokens ?? null,
    thinking_tokens: s.thinkingTokens ?? null,
    lineage_provenance: s.lineageProvenance ?? null,
    lineage_status: s.lineageStatus ?? null,
    schema_version: s.schemaVersion ?? null,
    replay_of: s.replayOf ?? null,
  };
}
export type SpanJson = ReturnType<typeof toSpanJson>;

/** The fields LangSight's SDK sends beyond the span model's core, in the API's JSON (REST and live events). */
export type ClientFieldsJson = ReturnType<typeof clientFieldsJson>;

/** LangSight's further fields of a span (the optional ones of `Span`). */
export type ClientFields = Pick<
  Span,
  | 'targetAgentName'
  | 'finishReason'
  | 'cacheReadTokens'
  | 'cacheCreationTokens'
  | 'thinkingTokens'
  | 'lineageProvenance'
  | 'lineageStatus'
  | 'schemaVersion'
  | 'replayOf'
>;

export function clientFieldsJson(s: ClientFields) {
  return {
    target_agent_name: s.targetAgentName ?? null,
    finish_reason: s.finishReason ?? null,
    cache_read_tokens: s.cacheReadTokens ?? null,
    cache_creation_tokens: s.cacheCreationTokens ?? null,
    thinking_tokens: s.thinkingTokens ?? null,
    lineage_provenance: s.lineageProvenance ?? null,
    lineage_status: s.lineageStatus ?? null,
    schema_version: s.schemaVersion ?? null,
    replay_of: s.replayOf ?? null,
  };
}

// toSpanJson writes the client fields out itself (no spread of clientFieldsJson, for speed): a field
// added to clientFieldsJson and not there fails to compile here.
const clientFieldsInSpanJson: Pick<SpanJson, keyof ClientFieldsJson> extends ClientFieldsJson
  ? true
  : never = true;
void clientFieldsInSpanJson;

/** Spans that started in one minute (the overview's per-minute counts). */
export interface MinuteCount {
  /** The minute's start (UTC). */
  minute: Date;
  spans: number;
  /** Spans with status error or timeout, as the rollups count failures. */
  errors: number;
}
