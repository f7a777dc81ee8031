import { randomUUID } from 'node:crypto';
import { Ajv, type ErrorObject } from 'ajv';
import { SpyglassError, type ValidationIssue } from '../errors.ts';
import {
  HEALTH_TAGS,
  SPAN_STATUSES,
  SPAN_TYPES,
  subMillisecondMicros,
  type ClientFieldsJson,
  type Span,
} from '../model/span.ts';
import { checkSpan, MAX_TOKENS } from './span-checks.ts';

const nullableString = { type: ['string', 'null'], maxLength: 1_000_000 };
const nullableInt = { type: ['integer', 'null'], minimum: 0, maximum: MAX_TOKENS };
const name = { type: 'string', minLength: 1, maxLength: 512 };
const id = { type: ['string', 'null'], maxLength: 128 };
const shortText = { type: ['string', 'null'], maxLength: 512 };

const spanSchema = {
  type: 'object',
  required: ['server_name', 'tool_name', 'started_at', 'ended_at', 'status'],
  properties: {
    server_name: name,
    tool_name: { type: 'string', maxLength: 1024 },
    started_at: { type: 'string', format: 'iso-datetime' },
    ended_at: { type: 'string', format: 'iso-datetime' },
    latency_ms: { type: ['number', 'null'], minimum: 0 },
    status: { enum: SPAN_STATUSES },
    span_id: { type: ['string', 'null'], minLength: 1, maxLength: 128 },
    parent_span_id: id,
    span_type: { enum: [...SPAN_TYPES, null] },
    trace_id: id,
    session_id: { type: ['string', 'null'], maxLength: 512 },
    agent_name: { type: ['string', 'null'], maxLength: 512 },
    project_id: { type: ['string', 'null'], maxLength: 128 },
    error: nullableString,
    input_args: { type: ['object', 'null'] },
    output_result: nullableString,
    llm_input: nullableString,
    llm_output: nullableString,
    input_tokens: nullableInt,
    output_tokens: nullableInt,
    model_id: { type: ['string', 'null'], maxLength: 512 },
    health_tag: { enum: [...HEALTH_TAGS, null] },
    target_agent_name: shortText,
    finish_reason: shortText,
    cache_read_tokens: nullableInt,
    cache_creation_tokens: nullableInt,
    thinking_tokens: nullableInt,
    lineage_provenance: shortText,
    lineage_status: shortText,
    schema_version: shortText,
    replay_of: shortText,
  },
} as const;

/** A 422 lists at most this many problems (of every span and field), then says how many more. */
export const MAX_REPORTED_ISSUES = 100;

// strictNumbers: JSON's 1e309 parses to Infinity, which is no number a span can hold.
// validateSchema off: the schema is ours; the meta-schema's compile cost start-up time.
const ajv = new Ajv({ allErrors: true, strict: false, strictNumbers: true, validateSchema: false });
// Naive timestamps (no zone) are read as UTC, as the spec says every timestamp is UTC.
ajv.addFormat('iso-datetime', {
  type: 'string',
  validate: (s: string) => !Number.isNaN(parseUtc(s)),
});
const validateBatch = ajv.compile({ type: 'array', items: spanSchema });

export interface NativeSpanInput extends Partial<ClientFieldsJson> {
  server_name: string;
  tool_name: string;
  started_at: string;
  ended_at: string;
  latency_ms?: number | null;
  status: Span['status'];
  span_id?: string | null;
  parent_span_id?: string | null;
  span_type?: Span['spanType'] | null;
  trace_id?: string | null;
  session_id?: string | null;
  agent_name?: string | null;
  project_id?: string | null;
  error?: string | null;
  input_args?: Record<string, unknown> | null;
  output_result?: string | null;
  llm_input?: string | null;
  llm_output?: string | null;
  input_tokens?: number | null;
  output_tokens?: number | null;
  model_id?: string | null;
  health_tag?: Span['healthTag'];
}

/**
 * Validates a native batch (docs/ingest.md#native-spans): any invalid span rejects the whole batch with a 422
 * listing every problem found (each `loc` names the span's index and field), up to
 * MAX_REPORTED_ISSUES. `projectId` is the project a span gets when it names none.
 */
export function normalizeNativeBatch(body: unknown, projectId: string, maxSpans: number): Span[] {
  const items = checkBatchShape(body, maxSpans);
  const issues: ValidationIssue[] = [];
  const spans = normalizeSlice(items, 0, items.length, projectId, issues);
  if (issues.length > 0) throw validationError(capIssues(issues));
  return spans;
}

/**
 * normalizeNativeBatch in slices of `sliceSpans` spans, calling `between` before each slice after
 * the first and awaiting what it returns (a turn of the event loop for another tenant's work: a
 * 10,000-span batch is 50-150 ms of validation in one piece otherwise). Same spans, same 422 with
 * every problem of every slice.
 */
export async function normalizeNativeBatchSliced(
  body: unknown,
  projectId: string,
  maxSpans: number,
  sliceSpans: number,
  between: () => Promise<void> | undefined,
): Promise<Span[]> {
  const items = checkBatchShape(body, maxSpans);
  const issues: ValidationIssue[] = [];
  const spans: Span[] = [];
  for (let from = 0; from < items.length; from += sliceSpans) {
    if (from > 0) {
      const wait = between();
      if (wait) await wait;
    }
    for (const s of normalizeSlice(
      items,
      from,
      Math.min(items.length, from + sliceSpans),
      projectId,
      issues,
    ))
      spans.push(s);
  }
  if (issues.length > 0) throw validationError(capIssues(issues));
  return spans;
}

function checkBatchShape(body: unknown, maxSpans: number): unknown[] {
  if (!Array.isArray(body)) {
    throw validationError([
      { loc: ['body'], msg: 'Input should be a valid list of spans', type: 'list_type' },
    ]);
  }
  if (body.length > maxSpans) {
    throw validationError([
      {
        loc: ['body'],
        msg: `A batch holds at most ${maxSpans} spans (got ${body.length})`,
        type: 'too_long',
      },
    ]);
  }
  return body;
}

/** Spans [from, to) of the batch; their problems (located by index in the whole batch) go to `issues`. */
function normalizeSlice(
  body: unknown[],
  from: number,
  to: number,
  projectId: string,
  issues: ValidationIssue[],
): Span[] {
  const part = from === 0 && to === body.length ? body : body.slice(from, to);
  const found = validateBatch(part) ? [] : (validateBatch.errors ?? []).map(toIssue);
  for (const i of found) if (typeof i.loc[1] === 'number') i.loc[1] += from;
  const malformed = new Set(found.map((i) => i.loc[1]));
  for (const i of found) issues.push(i);
  const spans: Span[] = [];
  part.forEach((input, k) => {
    const index = from + k;
    if (malformed.has(index)) return;
    const span = toSpan(input as NativeSpanInput, projectId);
    for (const p of checkSpan(span))
      issues.push({ loc: ['body', index, p.field], msg: p.msg, type: p.type });
    if (
      span.endedAt.getTime() * 1000 + (span.endedAtMicros ?? 0) <
      span.startedAt.getTime() * 1000 + (span.startedAtMicros ?? 0)
    ) {
      issues.push({
        loc: ['body', index, 'ended_at'],
        msg: 'ended_at must not be before started_at',
        type: 'value_error',
      });
    }
    spans.push(span);
  });
  return spans;
}

/** Sorted by span, at most MAX_REPORTED_ISSUES, and a last entry saying how many were left out. */
function capIssues(issues: ValidationIssue[]): ValidationIssue[] {
  const byIndex = (i: ValidationIssue) => (typeof i.loc[1] === 'number' ? i.loc[1] : -1);
  const sorted = issues.sort((a, b) => byIndex(a) - byIndex(b));
  if (sorted.length <= MAX_REPORTED_ISSUES) return sorted;
  const more = sorted.length - MAX_REPORTED_ISSUES;
  return [
    ...sorted.slice(0, MAX_REPORTED_ISSUES),
    { loc: ['body'], msg: `${more} more problems not listed`, type: 'too_many_errors' },
  ];
}

function toSpan(i: NativeSpanInput, projectId: string): Span {
  const startedAt = new Date(parseUtc(i.started_at));
  const endedAt = new Date(parseUtc(i.ended_at));
  const startedAtMicros = subMillisecondMicros(i.started_at);
  const endedAtMicros = subMillisecondMicros(i.ended_at);
  return {
    spanId: i.span_id ?? randomUUID(),
    traceId: i.trace_id ?? null,
    parentSpanId: i.parent_span_id || null,
    sessionId: i.session_id ?? null,
    // LangSight's client without a project sends "": no project given, not a project named "".
    projectId: i.project_id || projectId,
    spanType: i.span_type ?? 'tool_call',
    serverName: i.server_name,
    toolName: i.tool_name,
    agentName: i.agent_name ?? null,
    status: i.status,
    error: i.error ?? null,
    startedAt,
    endedAt,
    startedAtMicros,
    endedAtMicros,
    latencyMs:
      i.latency_ms ??
      endedAt.getTime() - startedAt.getTime() + (endedAtMicros - startedAtMicros) / 1000,
    inputArgs: i.input_args ?? null,
    // docs/ingest.md#native-spans: null on error (a failed call has no result to show).
    outputResult: i.status === 'error' || i.status === 'timeout' ? null : (i.output_result ?? null),
    llmInput: i.llm_input ?? null,
    llmOutput: i.llm_output ?? null,
    inputTokens: i.input_tokens ?? null,
    outputTokens: i.output_tokens ?? null,
    modelId: i.model_id ?? null,
    healthTag: i.health_tag ?? guardTag(i.status, i.error),
    costUsd: null,
    costEstimated: null,
    targetAgentName: i.target_agent_name ?? null,
    finishReason: i.finish_reason ?? null,
    cacheReadTokens: i.cache_read_tokens ?? null,
    cacheCreationTokens: i.cache_creation_tokens ?? null,
    thinkingTokens: i.thinking_tokens ?? null,
    lineageProvenance: i.lineage_provenance ?? null,
    lineageStatus: i.lineage_status ?? null,
    schemaVersion: i.schema_version ?? null,
    replayOf: i.replay_of ?? null,
  };
}

/** The error prefixes LangSight's guards put on a blocked call, each naming its session tag. */
const GUARD_PREFIXES = ['loop_detected', 'budget_exceeded', 'circuit_breaker_open'] as const;

/**
 * A prevented call that sends no health_tag (LangSight's SDK) is tagged from its error's prefix,
 * `loop_detected: …` → loop_detected; anything else stays untagged.
 */
export function guardTag(
  status: Span['status'],
  error: string | null | undefined,
): Span['healthTag'] {
  if (status !== 'prevented' || !error) return null;
  return GUARD_PREFIXES.find((p) => error.startsWith(`${p}:`)) ?? null;
}

const HAS_ZONE = /(Z|[+-]\d\d:?\d\d)$/i;

/** Milliseconds since the epoch, or NaN. Only ISO 8601 forms are accepted. */
export function parseUtc(s: string): number {
  const canonical = parseCanonicalUtc(s);
  if (canonical !== null) return canonical;
  if (!/^\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d+)?)?)?/.test(s)) return Number.NaN;
  return Date.parse(HAS_ZONE.test(s) || s.length === 10 ? s : `${s}Z`);
}

const DIGIT_0 = 48;

/**
 * The form every exporter sends, `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, read field by field: each span
 * has two timestamps, each read twice (validation, then the span), and Date.parse is the slow part.
 * Gives exactly what Date.parse gives, or null for anything else (the general path decides it).
 */
function parseCanonicalUtc(s: string): number | null {
  const n = s.length;
  if (n < 20 || n > 30 || s.charCodeAt(n - 1) !== 90 /* Z */) return null;
  if (s[4] !== '-' || s[7] !== '-' || s[10] !== 'T' || s[13] !== ':' || s[16] !== ':') return null;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  let ms = 0;
  if (n > 20) {
    // A fraction of 1 to 9 digits; Date.parse keeps milliseconds and drops the rest.
    if (s[19] !== '.' || n === 21 || digits(s, 20, n - 21) < 0) return null;
    ms = digits(s, 20, Math.min(3, n - 21)) * 10 ** Math.max(0, 3 - (n - 21));
  }
  // Years before 1000 (Date.UTC reads 0–99 as 1900–1999), day 0, hour 24 and the rest: the general path.
  if (
    year < 1000 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > 31 ||
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    second < 0 ||
    second > 59
  )
    return null;
  return Date.UTC(year, month - 1, day, hour, minute, second, ms);
}

/** The decimal number of s[from, from + count), or -1 if any of it is not a digit. */
function digits(s: string, from: number, count: number): number {
  let v = 0;
  for (let i = from; i < from + count; i++) {
    const d = s.charCodeAt(i) - DIGIT_0;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

function toIssue(e: ErrorObject): ValidationIssue {
  const loc: (string | number)[] = ['body'];
  for (const part of e.instancePath.split('/').slice(1))
    loc.push(/^\d+$/.test(part) ? Number(part) : part);
  switch (e.keyword) {
    case 'required':
      loc.push(String(e.params.missingProperty));
      return { loc, msg: 'Field required', type: 'missing' };
    case 'type':
      return {
        loc,
        msg: `Input should be of type ${String(e.params.type).replace(',', ' or ')}`,
        type: `${String(e.params.type).split(',')[0]}_type`,
      };
    case 'enum':
      return {
        loc,
        msg: `Input should be one of ${(e.params.allowedValues as unknown[])
          .filter((v) => v !== null)
          .map((v) => `'${String(v)}'`)
          .join(', ')}`,
        type: 'enum',
      };
    case 'format':
      return { loc, msg: 'Input should be an ISO 8601 datetime', type: 'datetime_parsing' };
    case 'maximum':
    case 'minimum':
      return {
        loc,
        msg: `Input should be ${e.keyword === 'maximum' ? 'at most' : 'at least'} ${String(e.params.limit)}`,
        type: e.keyword === 'maximum' ? 'less_than_equal' : 'greater_than_equal',
      };
    default:
      return { loc, msg: e.message ?? 'Invalid value', type: e.keyword };
  }
}

function validationError(issues: ValidationIssue[]): SpyglassError {
  return new SpyglassError('validation', 'invalid span batch', { issues });
}
