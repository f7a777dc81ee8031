import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The metrics of docs/api.md#metrics (`spyglass_` prefix), in one registry per process. */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'spyglass_http_requests_total',
    help: 'HTTP requests by method, normalised path and status',
    labelNames: ['method', 'path', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'spyglass_http_request_duration_seconds',
    help: 'HTTP request duration by method and normalised path',
    labelNames: ['method', 'path'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly spansIngested = new Counter({
    name: 'spyglass_spans_ingested_total',
    help: 'Spans stored through any receiver',
    registers: [this.registry],
  });
  readonly otlpSpansIgnored = new Counter({
    name: 'spyglass_otlp_spans_ignored_total',
    help: 'OTLP spans not stored because they are not agent, LLM or tool spans (docs/ingest.md#otlp-span-selection)',
    registers: [this.registry],
  });
  readonly activeSse = new Gauge({
    name: 'spyglass_active_sse_connections',
    help: 'Open live-event (SSE) connections',
    registers: [this.registry],
  });
  readonly healthChecks = new Counter({
    name: 'spyglass_health_checks_total',
    help: 'Completed MCP health checks by server and status',
    labelNames: ['server', 'status'] as const,
    registers: [this.registry],
  });
  readonly alertsFired = new Counter({
    name: 'spyglass_alerts_fired_total',
    help: 'Alerts written to the inbox (deduplicated repeats not counted) by type',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });
  readonly alertsDeduplicated = new Counter({
    name: 'spyglass_alerts_deduplicated_total',
    help: 'Alerts not written because their dedup key is already open (or fired for good), by type',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });
  readonly alertDeliveries = new Counter({
    name: 'spyglass_alert_deliveries_total',
    help: 'Chat deliveries of alerts by outcome (sent, failed, skipped)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly leader = new Gauge({
    name: 'spyglass_leader',
    help: '1 while this instance runs the cluster background jobs (always 1 without Redis), else 0',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'spyglass_process_' });
  }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const LONG_HEX = /\b[0-9a-f]{16,}\b/gi;

/**
 * Path label without ids (docs/api.md#metrics): every path parameter becomes `{id}` (so
 * `/api/projects/:project_id` is `/api/projects/{id}`); without a route, UUIDs and long hex do.
 */
export function normalisePath(routeUrl: string | undefined, rawUrl: string): string {
  if (routeUrl) return routeUrl.replace(/:\w+/g, '{id}');
  return (rawUrl.split('?')[0] ?? '').replace(UUID, '{id}').replace(LONG_HEX, '{id}');
}
