import type { Logger } from 'pino';
import { startPeriodic } from '../scale/jobs/periodic.ts';
import type { AlertService } from './alert-service.ts';

/** Resolved alerts are kept this long for audit (docs/alerts.md). */
export const ALERT_RETENTION_DAYS = 90;

/**
 * Background work of serve: every 30 s, snoozes that ended become firing rows again (also those
 * that ended while the server was down); hourly, resolved alerts past retention go.
 */
export function startAlertJobs(alerts: AlertService, logger: Logger): { stop(): Promise<void> } {
  const waker = startPeriodic(
    async () => {
      const n = await alerts.wake();
      if (n > 0) logger.info({ alerts: n }, 'alerts: snoozes ended, firing again');
    },
    30_000,
    (err) => logger.error({ err }, 'alert snooze waker failed'),
  );
  const retention = startPeriodic(
    async () => {
      const n = await alerts.prune(ALERT_RETENTION_DAYS);
      if (n > 0) logger.info({ alerts: n }, 'alert retention: old resolved alerts removed');
    },
    3_600_000,
    (err) => logger.error({ err }, 'alert retention failed'),
  );
  return {
    stop: async () => {
      await waker.stop();
      await retention.stop();
    },
  };
}
