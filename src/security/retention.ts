import type { Logger } from 'pino';
import { startPeriodic } from '../scale/jobs/periodic.ts';
import type { ScanService } from './scan-service.ts';

/** Scan retention (security.history_days, default 90): at start, then hourly, like health retention. */
export function startScanRetention(scans: ScanService, logger: Logger): { stop(): Promise<void> } {
  return startPeriodic(
    async () => {
      const n = await scans.applyRetention();
      if (n > 0) logger.info({ scans: n }, 'security retention: old scans removed');
    },
    3_600_000,
    (err) => logger.error({ err }, 'security retention failed'),
  );
}
