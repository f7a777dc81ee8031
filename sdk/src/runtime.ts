/**
 * The parts one Spyglass instance shares between its sessions: options, exporter, config client,
 * circuit breakers (local, and shared through Redis when asked), and the span recorder that stamps a scope's ids on every span.
 */
import { ConfigClient } from './config-client.ts';
import type { PreventionConfig } from './config.ts';
import { CircuitBreakers } from './engine.ts';
import { SpanExporter } from './exporter.ts';
import type { ResolvedOptions } from './options.ts';
import type { Scope } from './scope.ts';
import { SharedBreakers } from './shared-breakers.ts';
import { newId, type SpanStatus, type SpanType, type WireSpan } from './span.ts';
import type { HealthTag } from './tags.ts';

export interface SpanFields {
  spanType: SpanType;
  serverName: string;
  toolName: string;
  startedAt: number;
  endedAt: number;
  status: SpanStatus;
  error?: string | null;
  healthTag?: HealthTag | null;
  spanId?: string;
  /** Overrides the scope's span as parent (a handoff's child agent span hangs under the handoff). */
  parentSpanId?: string | null;
  extra?: Partial<WireSpan>;
}

export class Runtime {
  readonly exporter: SpanExporter;
  readonly configs: ConfigClient;
  readonly breakers: CircuitBreakers;
  /** Breaker state shared through Redis (option sharedBreakers); null: only the local breakers. */
  readonly shared: SharedBreakers | null;

  constructor(readonly opts: ResolvedOptions) {
    this.exporter = new SpanExporter({
      url: opts.url,
      apiKey: opts.apiKey,
      flushIntervalMs: opts.flushIntervalMs,
      maxBufferedSpans: opts.maxBufferedSpans,
      logger: opts.logger,
    });
    this.configs = new ConfigClient({
      url: opts.url,
      apiKey: opts.apiKey,
      projectId: opts.projectId,
      refreshMs: opts.configRefreshMs,
      logger: opts.logger,
      fallback: opts.prevention,
    });
    this.breakers = new CircuitBreakers(opts.clock);
    this.shared =
      opts.sharedBreakers === null ? null : new SharedBreakers(opts.sharedBreakers, opts.logger);
  }

  config(agentName: string): Readonly<PreventionConfig> {
    return this.configs.current(agentName);
  }

  record(scope: Scope, f: SpanFields): void {
    const span: WireSpan = {
      span_id: f.spanId ?? newId(),
      trace_id: scope.traceId,
      parent_span_id: f.parentSpanId !== undefined ? f.parentSpanId : scope.spanId,
      session_id: scope.sessionId,
      agent_name: scope.agentName,
      span_type: f.spanType,
      server_name: f.serverName,
      tool_name: f.toolName,
      started_at: new Date(f.startedAt).toISOString(),
      ended_at: new Date(f.endedAt).toISOString(),
      latency_ms: Math.max(0, f.endedAt - f.startedAt),
      status: f.status,
      error: f.error ?? null,
      health_tag: f.healthTag ?? null,
      ...f.extra,
    };
    if (this.opts.projectId !== undefined) span.project_id = this.opts.projectId;
    this.exporter.add(span);
  }

  stop(): void {
    this.exporter.stop();
    this.configs.stop();
  }
}
