import type { LiveSpan, SpanNewEvent } from '../../src/model/live-event.ts';

/**
 * A span:new event as ingest publishes it on the bus (src/model/live-event.ts: domain fields), for
 * tests that publish directly; override what a test cares about.
 */
export function spanNew(over: Partial<LiveSpan> = {}): SpanNewEvent {
  const startedAt = over.startedAt ?? new Date();
  return {
    type: 'span:new',
    data: {
      spanId: 'span-1',
      traceId: null,
      parentSpanId: null,
      sessionId: null,
      projectId: 'default',
      spanType: 'tool_call',
      serverName: 's',
      toolName: 't',
      agentName: null,
      status: 'success',
      error: null,
      startedAt,
      endedAt: startedAt,
      latencyMs: 1,
      inputTokens: null,
      outputTokens: null,
      modelId: null,
      healthTag: null,
      costUsd: null,
      ...over,
    },
  };
}
