import type { Span } from '../model/span.ts';

/**
 * The last step before the writer, shared by every receiver: makes a span storable or says why it
 * is not. Everything here is data PostgreSQL would refuse deterministically (so a retry can never
 * help): out-of-range integers and timestamps, non-finite numbers, keys too wide for the btree
 * indexes, runaway nesting. Lone UTF-16 surrogates and NUL are not worth losing a span over: they
 * are replaced (U+FFFD) or removed in place.
 */
export interface SpanProblem {
  /** The native (snake_case) field name, e.g. `input_tokens`. */
  field: string;
  msg: string;
  type: string;
}

/** input_args may nest objects and arrays this deep (the object itself is level 1). */
export const MAX_ARGS_DEPTH = 32;
export const MAX_TOKENS = 2_147_483_647;
/** 1000 years: far beyond any real call, far below where sums over many spans lose meaning. */
export const MAX_LATENCY_MS = 3.2e13;
const MIN_TIME = Date.parse('0001-01-01T00:00:00.000Z');
const MAX_TIME = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * UTF-8 bytes per indexed column. The widest key, session_tools (project, session, server, tool),
 * stays under PostgreSQL's btree row limit (2704 bytes) even when nothing compresses.
 */
export const MAX_BYTES = {
  project_id: 128,
  span_id: 128,
  trace_id: 128,
  parent_span_id: 128,
  session_id: 512,
  server_name: 512,
  agent_name: 512,
  model_id: 512,
  tool_name: 1024,
} as const;

const TEXT_FIELDS = {
  project_id: 'projectId',
  span_id: 'spanId',
  trace_id: 'traceId',
  parent_span_id: 'parentSpanId',
  session_id: 'sessionId',
  server_name: 'serverName',
  tool_name: 'toolName',
  agent_name: 'agentName',
  error: 'error',
  output_result: 'outputResult',
  llm_input: 'llmInput',
  llm_output: 'llmOutput',
  model_id: 'modelId',
} as const satisfies Record<string, keyof Span>;
/** [native name, model key] pairs, built once: checkSpan runs for every span ingested. */
const TEXT_FIELD_PAIRS = Object.entries(TEXT_FIELDS) as [keyof typeof TEXT_FIELDS, keyof Span][];

/**
 * Replaces lone surrogates with U+FFFD and removes NUL (PostgreSQL text cannot hold either).
 * isWellFormed and includes are native scans, several times cheaper than a unicode regex test.
 */
export function cleanText(s: string): string {
  const clean = s.isWellFormed() ? s : s.toWellFormed();
  return clean.includes('\0') ? clean.replaceAll('\0', '') : clean;
}

export function checkSpan(span: Span): SpanProblem[] {
  const problems: SpanProblem[] = [];
  const mutable = span as unknown as Record<string, string | null>;
  for (const [field, key] of TEXT_FIELD_PAIRS) {
    const v = mutable[key];
    if (typeof v !== 'string') continue;
    const clean = cleanText(v);
    mutable[key] = clean;
    const max = MAX_BYTES[field as keyof typeof MAX_BYTES] as number | undefined;
    if (max !== undefined && clean.length > max / 3 && Buffer.byteLength(clean) > max) {
      problems.push({
        field,
        msg: `String should have at most ${max} UTF-8 bytes`,
        type: 'string_too_long',
      });
    }
  }
  checkTime(span.startedAt, 'started_at', problems);
  checkTime(span.endedAt, 'ended_at', problems);
  if (!Number.isFinite(span.latencyMs) || span.latencyMs < 0 || span.latencyMs > MAX_LATENCY_MS) {
    problems.push({
      field: 'latency_ms',
      msg: `Input should be a finite number from 0 to ${MAX_LATENCY_MS}`,
      type: 'number_range',
    });
  }
  for (const [field, v] of [
    ['input_tokens', span.inputTokens],
    ['output_tokens', span.outputTokens],
  ] as const) {
    if (v !== null && !(Number.isInteger(v) && v >= 0 && v <= MAX_TOKENS)) {
      problems.push({
        field,
        msg: `Input should be an integer from 0 to ${MAX_TOKENS}`,
        type: 'int_range',
      });
    }
  }
  if (span.inputArgs !== null && !cleanValue(span.inputArgs, 1)) {
    problems.push({
      field: 'input_args',
      msg: `Input should nest at most ${MAX_ARGS_DEPTH} levels`,
      type: 'too_deep',
    });
  }
  return problems;
}

function checkTime(d: Date, field: string, problems: SpanProblem[]): void {
  const t = d.getTime();
  if (!(t >= MIN_TIME && t <= MAX_TIME)) {
    problems.push({
      field,
      msg: 'Input should be a datetime from year 1 to 9999',
      type: 'datetime_range',
    });
  }
}

/**
 * Cleans strings (values and keys) of a JSON value in place; false when it nests deeper than
 * MAX_ARGS_DEPTH. The recursion stops at that depth, so hostile nesting cannot exhaust the stack.
 */
function cleanValue(v: unknown, depth: number): boolean {
  if (typeof v !== 'object' || v === null) return true;
  if (depth > MAX_ARGS_DEPTH) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === 'string') v[i] = cleanText(x);
      else if (!cleanValue(x, depth + 1)) return false;
    }
    return true;
  }
  const o = v as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    let x = o[key];
    if (typeof x === 'string') x = o[key] = cleanText(x);
    else if (!cleanValue(x, depth + 1)) return false;
    const cleanKey = cleanText(key);
    if (cleanKey !== key) {
      delete o[key];
      Object.defineProperty(o, cleanKey, {
        value: x,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return true;
}
