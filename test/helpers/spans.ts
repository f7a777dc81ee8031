import { randomUUID } from 'node:crypto';
import type { Span } from '../../src/model/span.ts';
import { fetchUrl } from './inject-fetch.ts';

/** A valid native span (docs/ingest.md#native-spans) with every field set; override what a test cares about. */
export function nativeSpan(over: Record<string, unknown> = {}): Record<string, unknown> {
  const start = new Date(Date.now() - 1000);
  return {
    span_id: randomUUID(),
    trace_id: 'trace-1',
    parent_span_id: null,
    session_id: 'session-1',
    agent_name: 'planner',
    span_type: 'tool_call',
    server_name: 'filesystem',
    tool_name: 'read_file',
    started_at: start.toISOString(),
    ended_at: new Date(start.getTime() + 42).toISOString(),
    latency_ms: 42.5,
    status: 'success',
    error: null,
    input_args: { path: '/tmp/a.txt' },
    output_result: '"hello"',
    llm_input: null,
    llm_output: null,
    input_tokens: null,
    output_tokens: null,
    model_id: null,
    ...over,
  };
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetchUrl(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json: json as any, text };
}

export async function getJson(url: string, headers: Record<string, string> = {}) {
  const res = await fetchUrl(url, { headers });
  return { status: res.status, headers: res.headers, json: (await res.json()) as any };
}

/**
 * A stored span (the domain type ingest hands the writer): a successful tool call of `projectId`
 * lasting 10 ms from `startedAt`; `over` sets any field.
 */
export function span(projectId: string, startedAt: Date, over: Partial<Span> = {}): Span {
  return {
    spanId: randomUUID(),
    traceId: null,
    parentSpanId: null,
    sessionId: null,
    projectId,
    spanType: 'tool_call',
    serverName: 'filesystem',
    toolName: 'read_file',
    agentName: 'planner',
    status: 'success',
    error: null,
    startedAt,
    endedAt: new Date(startedAt.getTime() + 10),
    startedAtMicros: 0,
    endedAtMicros: 0,
    latencyMs: 10,
    inputArgs: null,
    outputResult: null,
    llmInput: null,
    llmOutput: null,
    inputTokens: null,
    outputTokens: null,
    modelId: null,
    healthTag: null,
    costUsd: null,
    costEstimated: null,
    ...over,
  };
}

/**
 * The fields a JSON writer gets wrong first: escapes and control characters, non-ASCII and
 * surrogate pairs in short and long (over a buffer's worth) text, keys that sort differently as
 * numbers, nested values, and the rarer optional fields set. For the byte-for-byte tests of the
 * REST reads written as bytes (test/sessions/tree-bytes, test/traces/list-bytes).
 */
export function awkwardSpanFields(): Partial<Span> {
  const long = (s: string) => s.repeat(40);
  return {
    spanId: 'text',
    error: 'short "quoted" \\ \t\u0001\u007f é 😀',
    llmInput: long('long "quoted" \\ line\n'),
    llmOutput: long('long non-ASCII Zürich — 😀 '),
    outputResult: long('plain long ASCII text '),
    inputArgs: { '2': 'b', '1': 'a', nested: { list: [1, 2.5, null, true, 'x"y'] }, é: '😀' },
    costEstimated: true,
    targetAgentName: 'booker',
    finishReason: 'end_turn',
    cacheReadTokens: 0,
  };
}
