import { toAlertJson } from './alert-json.ts';
import type { HealthCheck, LiveEvent, LiveSpan, ScanRunFindings } from './live-event.ts';
import { clientFieldsJson, isoMicros } from './span.ts';

/**
 * A live event's `data` in the API's snake_case JSON (docs/api.md#live-events-sse): the SSE frame's
 * data line. Built once per event, and only when a client listens (src/live/sse-hub.ts).
 */
export function toLiveEventJson(event: LiveEvent): object {
  switch (event.type) {
    case 'span:new':
      return toSpanNewJson(event.data);
    case 'health:check':
      return toHealthCheckJson(event.data);
    case 'alert:fired':
      return toAlertJson(event.data);
    case 'security:scan':
      return toScanRunJson(event.data);
  }
}

/** span:new: the span's summary, its times with microseconds when it has any. */
export function toSpanNewJson(s: LiveSpan) {
  return {
    session_id: s.sessionId,
    agent_name: s.agentName,
    server_name: s.serverName,
    tool_name: s.toolName,
    status: s.status,
    latency_ms: s.latencyMs,
    project_id: s.projectId,
    span_id: s.spanId,
    trace_id: s.traceId,
    /** null for a root span: a root agent span arriving means its run is over. */
    parent_span_id: s.parentSpanId,
    span_type: s.spanType,
    started_at: isoMicros(s.startedAt, s.startedAtMicros),
    ended_at: isoMicros(s.endedAt, s.endedAtMicros),
    model_id: s.modelId,
    input_tokens: s.inputTokens,
    output_tokens: s.outputTokens,
    cost_usd: s.costUsd,
    health_tag: s.healthTag,
    error: s.error,
    ...clientFieldsJson(s),
  };
}
export type SpanNewJson = ReturnType<typeof toSpanNewJson>;

export function toHealthCheckJson(h: HealthCheck) {
  return {
    server_name: h.serverName,
    status: h.status,
    latency_ms: h.latencyMs,
    project_id: h.projectId,
  };
}

/** security:scan is internal (never streamed); its JSON is for logs and completeness. */
function toScanRunJson(r: ScanRunFindings) {
  return {
    project_id: r.projectId,
    servers: r.servers,
    critical_count: r.criticalCount,
    high_count: r.highCount,
    highest_severity: r.highestSeverity,
    scanned_at: r.scannedAt.toISOString(),
  };
}
