import type { Span } from '../model/span.ts';
import type { DecodedSpan } from '../model/otlp.ts';
import { ALIASES } from './otlp-aliases.ts';
import { first, text } from './otlp-values.ts';

/** A span the selection rule did not take, with what its resource said. */
export interface Unselected {
  span: DecodedSpan;
  projectId: string;
  service: string | undefined;
}

/**
 * ingest.otlp_keep_all_spans: the unselected spans whose trace has a selected span in the same
 * export become `generic` spans of that trace (its session and agent), so the tree shows the HTTP
 * and database calls around a tool call. The others stay unselected.
 */
export function keepSelectedTraces(
  unselected: readonly Unselected[],
  selected: readonly Span[],
): { kept: Span[]; left: Unselected[] } {
  const traces = new Map<string, { sessionId: string | null; agentName: string | null }>();
  for (const s of selected) {
    if (!s.traceId) continue;
    const key = traceKey(s.projectId, s.traceId);
    const t = traces.get(key);
    if (!t) traces.set(key, { sessionId: s.sessionId, agentName: s.agentName });
    else {
      t.sessionId ??= s.sessionId;
      t.agentName ??= s.agentName;
    }
  }
  const kept: Span[] = [];
  const left: Unselected[] = [];
  for (const u of unselected) {
    const trace = u.span.traceId ? traces.get(traceKey(u.projectId, u.span.traceId)) : undefined;
    if (trace) kept.push(toGenericSpan(u, trace));
    else left.push(u);
  }
  return { kept, left };
}

function traceKey(projectId: string, traceId: string): string {
  return `${projectId}\u0000${traceId}`;
}

function toGenericSpan(
  { span: s, projectId, service }: Unselected,
  trace: { sessionId: string | null; agentName: string | null },
): Span {
  const failed = s.statusCode === 2;
  return {
    spanId: s.spanId,
    traceId: s.traceId,
    parentSpanId: s.parentSpanId || null,
    sessionId: trace.sessionId,
    projectId,
    spanType: 'generic',
    // An HTTP span's host, a database span's system, else the service that made the call.
    serverName:
      first(s.attributes, ['server.address', 'db.system.name', 'db.system', 'rpc.service'], text) ??
      service ??
      'unknown',
    toolName: s.name || 'span',
    agentName: trace.agentName ?? service ?? null,
    status: failed ? 'error' : 'success',
    error: failed
      ? s.statusMessage || first(s.attributes, ALIASES.errorType, text) || 'error'
      : null,
    startedAt: new Date(s.startTimeMs),
    endedAt: new Date(Math.max(s.endTimeMs, s.startTimeMs)),
    latencyMs: Math.max(0, s.endTimeMs - s.startTimeMs),
    // Its attributes (URL, status code, statement…) are what the tree shows about it.
    inputArgs: Object.keys(s.attributes).length > 0 ? { ...s.attributes } : null,
    outputResult: null,
    llmInput: null,
    llmOutput: null,
    inputTokens: null,
    outputTokens: null,
    modelId: null,
    healthTag: null,
    costUsd: null,
    costEstimated: null,
  };
}
