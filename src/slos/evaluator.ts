import type { Logger } from 'pino';
import { startPeriodic } from '../scale/jobs/periodic.ts';

/** docs/slos.md: the SLO evaluator runs every 60 s. */
export const SLO_EVALUATION_MS = 60_000;

/**
 * Evaluates every project's SLOs at start and then every minute, so breaches alert without anyone
 * reading the status. `evaluateAll` is looked up per run (the service's own clock decides "now").
 */
export function startSloEvaluator(
  evaluateAll: (signal: AbortSignal) => Promise<void>,
  logger: Logger,
): { stop(): Promise<void> } {
  return startPeriodic(evaluateAll, SLO_EVALUATION_MS, (err) =>
    logger.error({ err }, 'SLO evaluation failed'),
  );
}
