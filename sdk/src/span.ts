/** The native span the SDK sends (spec §2.1 plus decisions §3's `prevented` status and `health_tag`). */
import { randomUUID } from 'node:crypto';
import type { HealthTag } from './tags.ts';

export type SpanStatus = 'success' | 'error' | 'timeout' | 'prevented';
export type SpanType = 'tool_call' | 'agent' | 'handoff';

export interface WireSpan {
  span_id: string;
  trace_id: string;
  parent_span_id: string | null;
  session_id: string;
  agent_name: string;
  span_type: SpanType;
  server_name: string;
  tool_name: string;
  started_at: string;
  ended_at: string;
  latency_ms: number;
  status: SpanStatus;
  error: string | null;
  health_tag: HealthTag | null;
  input_args?: Record<string, unknown> | null;
  output_result?: string | null;
  llm_input?: string | null;
  llm_output?: string | null;
  input_tokens?: number | null;
  output_tokens?: number | null;
  model_id?: string | null;
  /** A handoff's receiving agent: the lineage graph draws the handoff edge from it. */
  target_agent_name?: string | null;
  project_id?: string;
}

export const newId = (): string => randomUUID();

/** JSON of a value that never throws (cycles, BigInt): the result field must not break the call. */
export function safeJson(value: unknown): string {
  try {
    return (
      JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ??
      'null'
    );
  } catch {
    return String(value);
  }
}

/** Plain-object tool arguments for `input_args` (anything else is wrapped so the server accepts it). */
export function argsObject(args: unknown): Record<string, unknown> | null {
  if (args === undefined || args === null) return null;
  if (typeof args === 'object' && !Array.isArray(args)) return args as Record<string, unknown>;
  return { value: args };
}
