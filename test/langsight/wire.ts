/**
 * LangSight 0.15's `LangSightClient` wire format, written here from its documented behaviour:
 * a JSON array posted to /api/traces/spans with `X-API-Key`, timestamps with microseconds and `Z`,
 * `project_id: ""` when the client was built without a project, and its newer span fields.
 */

/** `2026-11-26T09:00:28.410233Z`: the form Pydantic gives a Python datetime with microseconds. */
export function microIso(epochMicros: bigint): string {
  const ms = Number(epochMicros / 1000n);
  const micros = String(epochMicros % 1_000_000n).padStart(6, '0');
  return `${new Date(ms).toISOString().slice(0, 19)}.${micros}Z`;
}

/** Microseconds since the epoch, `offsetMicros` after `baseMs`. */
export function at(baseMs: number, offsetMicros: number): bigint {
  return BigInt(baseMs) * 1000n + BigInt(offsetMicros);
}

export interface LangSightBatch {
  spans: Record<string, unknown>[];
  ids: {
    user: string;
    llm: string;
    intent: string;
    tool: string;
    handoff: string;
    closing: string;
  };
}

/**
 * One agent turn as LangSight's SDK reports it: the user's message, the LLM call (wrap_llm), the
 * tool_use block it returned (llm_intent), the tool call that claims it as parent, a handoff and
 * the agent's closing span. Spans inside one millisecond differ only in their microseconds.
 */
export function langsightTurn(session: string, baseMs: number): LangSightBatch {
  const ids = {
    user: `${session}-user`,
    llm: `${session}-llm`,
    intent: `${session}-intent`,
    tool: `${session}-tool`,
    handoff: `${session}-handoff`,
    closing: `${session}-closing`,
  };
  const common = {
    trace_id: `${session}-trace`,
    session_id: session,
    project_id: '',
    agent_name: 'support-agent',
    schema_version: '1.1',
  };
  const span = (id: string, from: number, to: number, over: Record<string, unknown>) => ({
    span_id: id,
    ...common,
    started_at: microIso(at(baseMs, from)),
    ended_at: microIso(at(baseMs, to)),
    latency_ms: (to - from) / 1000,
    status: 'success',
    error: null,
    ...over,
  });
  return {
    ids,
    spans: [
      span(ids.user, 0, 10, {
        span_type: 'user_message',
        server_name: 'support-agent',
        tool_name: 'user_message',
        llm_input: 'Where is my order 42?',
      }),
      span(ids.llm, 3000, 900_000, {
        span_type: 'agent',
        parent_span_id: ids.closing,
        server_name: 'support-agent',
        tool_name: 'generate',
        model_id: 'claude-sonnet-4-5',
        llm_input: '[{"role":"user","content":"Where is my order 42?"}]',
        llm_output: 'Let me look that up.',
        input_tokens: 1200,
        output_tokens: 80,
        cache_read_tokens: 4000,
        cache_creation_tokens: 500,
        thinking_tokens: 300,
        finish_reason: 'tool_use',
      }),
      // The tool_use block of the LLM answer, 1 µs after the LLM span ends: same millisecond.
      span(ids.intent, 900_001, 900_002, {
        span_type: 'llm_intent',
        parent_span_id: ids.llm,
        server_name: 'orders-mcp',
        tool_name: 'get_order',
        input_args: { order_id: 42 },
      }),
      span(ids.tool, 900_003, 950_000, {
        span_type: 'tool_call',
        parent_span_id: ids.intent,
        server_name: 'orders-mcp',
        tool_name: 'get_order',
        input_args: { order_id: 42 },
        output_result: '{"status":"shipped"}',
        lineage_provenance: 'explicit',
        lineage_status: 'complete',
        replay_of: null,
      }),
      span(ids.handoff, 950_001, 950_500, {
        span_type: 'handoff',
        parent_span_id: ids.closing,
        server_name: 'support-agent',
        tool_name: '→ billing-agent',
        target_agent_name: 'billing-agent',
      }),
      span(ids.closing, 2000, 1_000_000, {
        span_type: 'agent',
        server_name: 'support-agent',
        tool_name: 'answer the customer',
      }),
    ],
  };
}
