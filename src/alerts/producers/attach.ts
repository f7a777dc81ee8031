import type { Logger } from 'pino';
import type { Config } from '../../config/types.ts';
import type { HealthService } from '../../health/health-service.ts';
import type { Span } from '../../model/span.ts';
import type { Db } from '../../store/db.ts';
import { listResults } from '../../store/health-repo.ts';
import type { AlertSink } from '../../model/alert.ts';
import { AgentFailureAlerts } from './agent-failures.ts';
import { MonitorAlerts } from './monitor-alerts.ts';

/**
 * src/alerts/producers: the alerts that come from health checks (monitor-*) and from ingest
 * (agent-failures), each firing through the one AlertSink. attachProducers wires both.
 */
export interface AlertProducers {
  monitor: MonitorAlerts;
  agentFailures: AgentFailureAlerts;
  /** For ingest: called with every committed batch. */
  onCommitted(spans: readonly Span[]): void;
  /** Resolves when every alert started so far has reached the sink. */
  settled(): Promise<void>;
  /** Drops what is remembered about a deleted project. */
  forgetProject(projectId: string): void;
  /** Stops listening to health checks (alerts already started still finish; await settled()). */
  detach(): void;
}

export interface ProducerDeps {
  sink: AlertSink;
  health: HealthService;
  db: Db;
  config: Pick<Config, 'alerts' | 'monitor'>;
  logger: Logger;
}

export function attachProducers(deps: ProducerDeps): AlertProducers {
  const monitor = new MonitorAlerts({
    sink: deps.sink,
    rules: {
      consecutiveFailures: deps.config.alerts.consecutiveFailures,
      alertOnEveryFailure: deps.config.monitor.alertOnEveryFailure,
      latencySpikeMultiplier: deps.config.alerts.latencySpikeMultiplier,
    },
    history: (projectId, serverName, limit) => listResults(deps.db, projectId, serverName, limit),
    logger: deps.logger,
  });
  const agentFailures = new AgentFailureAlerts({ sink: deps.sink, logger: deps.logger });
  const detach = deps.health.onReport((report) => monitor.observe(report));
  return {
    monitor,
    agentFailures,
    onCommitted: (spans) => agentFailures.observe(spans),
    settled: async () => {
      await Promise.all([monitor.settled(), agentFailures.settled()]);
    },
    forgetProject: (projectId) => {
      monitor.forgetProject(projectId);
      agentFailures.forgetProject(projectId);
    },
    detach,
  };
}
