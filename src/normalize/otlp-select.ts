import { SPAN_TYPES, type SpanType } from '../model/span.ts';
import type { DecodedSpan } from '../model/otlp.ts';
import {
  AGENT_OPERATIONS,
  FRAMEWORK_KIND_KEYS,
  FRAMEWORK_KINDS,
  LLM_MARKER_PREFIXES,
  LLM_MARKERS,
  OWN,
} from './otlp-aliases.ts';
import { text } from './otlp-values.ts';

/**
 * The selection rule (docs/ingest.md#otlp-span-selection), in order: what a span is, or undefined
 * when it is not an agent, LLM or tool span (plain HTTP, database…). null = a tool call unless it
 * carries LLM input or output (decided by the mapper).
 */
export function selectKind(s: DecodedSpan): SpanType | null | undefined {
  const a = s.attributes;
  const own = text(a[OWN.spanType]);
  if (own && (SPAN_TYPES as readonly string[]).includes(own)) return own as SpanType;
  if (s.name.startsWith('mcp.') || 'gen_ai.tool.name' in a || 'mcp.method.name' in a) return null;
  if ('mcp.server.name' in a && 'mcp.tool.name' in a) return null;
  if ('gen_ai.operation.name' in a) {
    const operation = text(a['gen_ai.operation.name']);
    return operation !== undefined && AGENT_OPERATIONS.has(operation) ? 'agent' : null;
  }
  for (const key of FRAMEWORK_KIND_KEYS) {
    const kind = text(a[key]);
    if (kind !== undefined && Object.hasOwn(FRAMEWORK_KINDS, kind))
      return FRAMEWORK_KINDS[kind] as SpanType;
  }
  return hasLlmMarker(s) ? 'agent' : undefined;
}

/** An LLM call without gen_ai.operation.name: OpenLLMetry's llm.request.type, prompts, completions, usage. */
function hasLlmMarker(s: DecodedSpan): boolean {
  for (const key in s.attributes) {
    if ((LLM_MARKERS as readonly string[]).includes(key)) return true;
    for (const prefix of LLM_MARKER_PREFIXES) if (key.startsWith(prefix)) return true;
  }
  return false;
}
