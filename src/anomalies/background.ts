import type { Logger } from 'pino';
import { startPeriodic } from '../scale/jobs/periodic.ts';
import type { AnomalyDetector } from './detector.ts';

/**
 * The background detector of `spyglass serve` (docs/anomalies.md): at start, then every
 * `anomalies.interval_seconds` (60 by default; 0 turns it off). stop() waits for a run in progress.
 */
export function startAnomalyDetection(
  detector: AnomalyDetector,
  logger: Logger,
  intervalSeconds: number,
): { stop(): Promise<void> } {
  if (intervalSeconds === 0) return { stop: async () => {} };
  return startPeriodic(
    (signal) => detector.detectAll(undefined, signal),
    intervalSeconds * 1000,
    (err) => logger.error({ err }, 'anomaly detection failed'),
  );
}
