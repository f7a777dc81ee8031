import type { Alert } from './alert.ts';
import type { HealthStatus } from './health.ts';
import type { Span } from './span.ts';

/**
 * The live events, as services publish them on the bus (src/live/bus.ts): domain values (camelCase,
 * `Date`). Adapters translate: the SSE stream with `toLiveEventJson` (src/model/live-event-json.ts,
 * docs/api.md#live-events-sse), GraphQL subscriptions field by field, the Redis relay with one JSON
 * codec (src/scale/coord/live-codec.ts). An event is not changed once published: every subscriber,
 * and the SSE replay ring, holds the same object.
 */
export type LiveEvent = SpanNewEvent | HealthCheckEvent | AlertFiredEvent | SecurityScanEvent;

/** A span just stored. */
export interface SpanNewEvent {
  type: 'span:new';
  data: LiveSpan;
}

/**
 * What a live feed shows of a span: the span without its payloads (the SSE replay ring, the Redis
 * stream and slow clients' buffers hold events, so no payload stays in memory through them), its
 * error cut to LIVE_ERROR_CHARS. The whole span is one `span(spanId)` query away.
 */
export type LiveSpan = Omit<
  Span,
  'inputArgs' | 'outputResult' | 'llmInput' | 'llmOutput' | 'costEstimated'
>;

/** How much of a span's error its span:new event carries. */
export const LIVE_ERROR_CHARS = 500;

/**
 * The span:new event of a stored span: one object for the event and one for its data, nothing
 * formatted (ingest publishes one per span; times are mapped only when a client listens).
 */
export function spanNewEvent(s: Span): SpanNewEvent {
  return {
    type: 'span:new',
    data: {
      spanId: s.spanId,
      traceId: s.traceId,
      parentSpanId: s.parentSpanId,
      sessionId: s.sessionId,
      projectId: s.projectId,
      spanType: s.spanType,
      serverName: s.serverName,
      toolName: s.toolName,
      agentName: s.agentName,
      status: s.status,
      error: s.error === null ? null : s.error.slice(0, LIVE_ERROR_CHARS),
      startedAt: s.startedAt,
      endedAt: s.endedAt,
      startedAtMicros: s.startedAtMicros,
      endedAtMicros: s.endedAtMicros,
      latencyMs: s.latencyMs,
      inputTokens: s.inputTokens,
      outputTokens: s.outputTokens,
      modelId: s.modelId,
      healthTag: s.healthTag,
      costUsd: s.costUsd,
      targetAgentName: s.targetAgentName,
      finishReason: s.finishReason,
      cacheReadTokens: s.cacheReadTokens,
      cacheCreationTokens: s.cacheCreationTokens,
      thinkingTokens: s.thinkingTokens,
      lineageProvenance: s.lineageProvenance,
      lineageStatus: s.lineageStatus,
      schemaVersion: s.schemaVersion,
      replayOf: s.replayOf,
    },
  };
}

/** A health check's result, announced as it is stored. */
export interface HealthCheckEvent {
  type: 'health:check';
  data: HealthCheck;
}

export interface HealthCheck {
  serverName: string;
  status: HealthStatus;
  latencyMs: number | null;
  /** Absent: the event reaches every subscriber, whatever its project. */
  projectId?: string;
}

/** An inbox record just written (docs/alerts.md#the-inbox-record). */
export interface AlertFiredEvent {
  type: 'alert:fired';
  data: Alert;
}

/**
 * One scan run ended with critical or high findings (docs/security.md#alerts-and-events
 * security_critical / security_high: one per scan run, not per finding). Internal: alerting
 * subscribes; SSE does not stream it and the relay does not carry it.
 */
export interface SecurityScanEvent {
  type: 'security:scan';
  data: ScanRunFindings;
}

export interface ScanRunFindings {
  projectId: string;
  /** The servers of the run whose scans have critical or high findings. */
  servers: string[];
  criticalCount: number;
  highCount: number;
  highestSeverity: 'critical' | 'high';
  /** The run's latest scan time: the alert's dedup key. */
  scannedAt: Date;
}
