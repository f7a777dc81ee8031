import type { Logger } from 'pino';
import type { EventBus, SecurityScanEvent } from '../live/bus.ts';
import type { AlertSink } from '../model/alert.ts';

/**
 * security_critical / security_high (docs/security.md#alerts-and-events): one alert per scan run, not per finding. The scan
 * service publishes `security:scan` for each project whose run found something critical or high;
 * the run's scanned_at is the dedup key, kept forever, so a replayed event fires nothing new.
 */
export function watchSecurityScans(bus: EventBus, sink: AlertSink, logger: Logger): () => void {
  // Batches filtered by type: span:new traffic never reaches this listener.
  return bus.subscribeBatches({ type: 'security:scan', projectId: null }, (items) => {
    for (const { event } of items) {
      if (event.type !== 'security:scan') continue;
      sink
        .fire(securityAlert(event))
        .catch((err: unknown) =>
          logger.error({ err: (err as Error).message }, 'security alert failed'),
        );
    }
  });
}

export function securityAlert(event: SecurityScanEvent): Parameters<AlertSink['fire']>[0] {
  const d = event.data;
  const critical = d.critical_count > 0;
  const counts = [
    d.critical_count > 0 ? `${d.critical_count} critical` : null,
    d.high_count > 0 ? `${d.high_count} high` : null,
  ]
    .filter(Boolean)
    .join(' and ');
  const servers = d.servers.join(', ');
  return {
    type: critical ? 'security_critical' : 'security_high',
    severity: critical ? 'critical' : 'warning',
    title: `Security scan: ${counts} finding${d.critical_count + d.high_count === 1 ? '' : 's'}`,
    message: `The scan of ${d.scanned_at} found ${counts} finding(s) on ${servers}.`,
    projectId: d.project_id,
    serverName: d.servers.length === 1 ? (d.servers[0] ?? null) : null,
    dedupKey: `security_scan:${d.scanned_at}`,
    dedupScope: 'forever',
    fields: { servers, critical: d.critical_count, high: d.high_count },
  };
}
