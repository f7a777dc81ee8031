import type { Logger } from 'pino';
import { startPeriodic } from '../jobs/periodic.ts';
import type { AnomalyDetector } from './detector.ts';

/** How often `spyglass serve` evaluates every project (decisions §8: in the background). */
export const DETECT_EVERY_MS = 60_000;

/** The background detector: at start, then every minute; stop() waits for a run in progress. */
export function startAnomalyDetection(detector: AnomalyDetector, logger: Logger, everyMs = DETECT_EVERY_MS): { stop(): Promise<void> } {
  return startPeriodic(() => detector.detectAll(), everyMs, (err) => logger.error({ err }, 'anomaly detection failed'));
}
