import type { Logger } from 'pino';
import { startPeriodic } from '../scale/jobs/periodic.ts';
import type { HealthService } from './health-service.ts';
import type { CheckReport } from './checker.ts';
import { HealthMonitor } from './monitor.ts';

const RETENTION_EVERY_MS = 3_600_000;

export interface EmbeddedHealth {
  monitor: HealthMonitor | null;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Run the monitor even when `monitor.enabled` is false (the `spyglass monitor` daemon). */
  forceMonitor?: boolean;
  /** Overrides monitor.health_check_interval_seconds. */
  intervalSeconds?: number;
  onReport?: (report: CheckReport) => void;
  /** The retention job's first pass this long after start (default at once). */
  retentionAfterMs?: number;
}

/**
 * What runs in the background for health in `spyglass serve` (and the `spyglass monitor`
 * daemon): the monitor (unless `monitor.enabled: false`) and the retention job (at start, then hourly).
 */
export function startEmbeddedHealth(
  health: HealthService,
  logger: Logger,
  opts: EmbeddedOptions = {},
): EmbeddedHealth {
  const cfg = health.monitorConfig;
  const intervalSeconds = opts.intervalSeconds ?? cfg.intervalSeconds;
  const monitor =
    cfg.enabled || opts.forceMonitor
      ? new HealthMonitor(health, { intervalSeconds, logger, onReport: opts.onReport })
      : null;
  const retention = startPeriodic(
    async () => {
      const n = await health.applyRetention();
      if (n.results + n.driftEvents > 0) logger.info(n, 'health retention: old results removed');
    },
    RETENTION_EVERY_MS,
    (err) => logger.error({ err }, 'health retention failed'),
    opts.retentionAfterMs,
  );
  monitor?.start();
  return {
    monitor,
    stop: async () => {
      await monitor?.stop();
      await retention.stop();
    },
  };
}
