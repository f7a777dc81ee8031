import type { Logger } from 'pino';
import type { EventBus } from '../live/bus.ts';
import type { SecurityScanEvent } from '../model/live-event.ts';
import type { AlertSink } from '../model/alert.ts';

/**
 * security_critical / security_high (docs/security.md#alerts-and-events): one alert per scan run, not per finding. The scan
 * service publishes `security:scan` for each project whose run found something critical or high;
 * the run's scan time is the dedup key, kept forever, so a replayed event fires nothing new.
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
  const critical = d.criticalCount > 0;
  const scannedAt = d.scannedAt.toISOString();
  const counts = [
    d.criticalCount > 0 ? `${d.criticalCount} critical` : null,
    d.highCount > 0 ? `${d.highCount} high` : null,
  ]
    .filter(Boolean)
    .join(' and ');
  const servers = d.servers.join(', ');
  return {
    type: critical ? 'security_critical' : 'security_high',
    severity: critical ? 'critical' : 'warning',
    title: `Security scan: ${counts} finding${d.criticalCount + d.highCount === 1 ? '' : 's'}`,
    message: `The scan of ${scannedAt} found ${counts} finding(s) on ${servers}.`,
    projectId: d.projectId,
    serverName: d.servers.length === 1 ? (d.servers[0] ?? null) : null,
    dedupKey: `security_scan:${scannedAt}`,
    dedupScope: 'forever',
    fields: { servers, critical: d.criticalCount, high: d.highCount },
  };
}
