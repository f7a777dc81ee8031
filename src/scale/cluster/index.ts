import cluster from 'node:cluster';
import type { Logger } from 'pino';
import type { Config } from '../../config/types.ts';

/**
 * `serve` with SPYGLASS_WORKERS above 1. The same entry point runs in the primary and, forked by
 * it through node:cluster, in every worker (cluster re-runs `spyglass serve` with the same
 * environment, so each worker loads the same config).
 */
export async function runClustered(config: Config, logger: Logger): Promise<void> {
  if (cluster.isPrimary) {
    const { runPrimary } = await import('./primary.ts');
    await runPrimary(config, logger);
  } else {
    const { runWorker } = await import('./worker.ts');
    await runWorker(config, logger);
  }
}
