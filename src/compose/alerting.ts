import { AlertService } from '../alerts/alert-service.ts';
import { attachProducers, type AlertProducers } from '../alerts/producers/attach.ts';
import { watchSecurityScans } from '../alerts/security-alerts.ts';
import { AnomalyDetector } from '../anomalies/detector.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import type { HealthService } from '../health/health-service.ts';
import { ObservedToolsService } from '../health/observed-tools.ts';
import type { EventBus } from '../live/bus.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { Outbound } from '../net/guarded-fetch.ts';
import { SloService } from '../slos/slo-service.ts';
import type { Base } from './core.ts';

export interface PipelineDeps {
  bus: EventBus;
  metrics: Metrics;
  audit: AuditLog;
  outbound: Outbound;
}

/** The alert pipeline (docs/alerts.md): dedup, inbox, live event, chat message. */
export function createAlertService({ config, store, logger }: Base, d: PipelineDeps): AlertService {
  const { bus, metrics, audit, outbound } = d;
  return new AlertService({ config, db: store.db, logger, bus, metrics, audit, outbound });
}

/** The alerts that come by themselves: from health checks, ingest and security scans. */
export interface Producers {
  alertProducers: AlertProducers;
  /** Stops listening, then waits until every alert started so far has reached the pipeline. */
  close(): Promise<void>;
}

/**
 * Attaches the producers of docs/alert-producers.md (every completed health check, every committed
 * span batch through `alertProducers.onCommitted`) and the security scan alerts to `alerts`.
 */
export function attachAlerting(
  { config, store, logger }: Base,
  d: { alerts: AlertService; health: HealthService; bus: EventBus },
): Producers {
  const unwatchScans = watchSecurityScans(d.bus, d.alerts, logger);
  const alertProducers = attachProducers({
    sink: d.alerts,
    health: d.health,
    db: store.db,
    config,
    logger,
  });
  return {
    alertProducers,
    close: async () => {
      unwatchScans();
      alertProducers.detach();
      await alertProducers.settled();
    },
  };
}

/** Everything that fires through the pipeline, and the pipeline itself. */
export interface Alerting extends Producers {
  alerts: AlertService;
  /** Run in the background by startServer (docs/anomalies.md). */
  anomalies: AnomalyDetector;
  /** SLO definitions and evaluation; startServer runs its evaluator (docs/slos.md). */
  slos: SloService;
  observedTools: ObservedToolsService;
}

export function createAlerting(base: Base, d: PipelineDeps & { health: HealthService }): Alerting {
  const { store, logger } = base;
  const alerts = createAlertService(base, d);
  const producers = attachAlerting(base, { alerts, health: d.health, bus: d.bus });
  return {
    ...producers,
    alerts,
    anomalies: new AnomalyDetector({ db: store.db, sink: alerts, logger }),
    slos: new SloService({ db: store.db, alerts, logger, audit: d.audit }),
    observedTools: new ObservedToolsService({ db: store.db, alerts, logger }),
    close: async () => {
      await producers.close();
      await alerts.close();
    },
  };
}
