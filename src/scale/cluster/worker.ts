import cluster from 'node:cluster';
import type { Logger } from 'pino';
import type { Config } from '../../config/types.ts';
import { isShutdownMessage } from './messages.ts';

/**
 * One cluster worker: the whole server on the ports the primary shares, without the port check
 * or the migrations (the primary did both). It drains on the primary's shutdown message and on
 * SIGTERM/SIGINT sent to it directly (a second signal forces exit), then exits 0.
 */
export async function runWorker(config: Config, baseLogger: Logger): Promise<void> {
  const logger = baseLogger.child({ worker: cluster.worker?.id ?? null });
  let requested: string | null = null;
  let signals = 0;
  let drain: (() => void) | null = null;
  const request = (why: string) => {
    requested ??= why;
    drain?.();
  };
  process.on('message', (msg: unknown) => {
    if (isShutdownMessage(msg)) request('primary');
  });
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    request(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  const { startServer } = await import('../../main.ts');
  // Each worker is its own holder in the leader lease: an instance id set once for the host
  // (SPYGLASS_INSTANCE_ID) would otherwise let every worker renew the same lease as "itself".
  const id = cluster.worker?.id ?? process.pid;
  const own = {
    ...config,
    cluster: { ...config.cluster, instanceId: `${config.cluster.instanceId}/worker-${id}` },
  };
  const server = await startServer(own, logger, { worker: true });
  let stopped = false;
  drain = () => {
    if (stopped) return;
    stopped = true;
    logger.info({ by: requested }, 'shutting down: committing acknowledged spans');
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // Asked to stop while it was starting.
  if (requested !== null) drain();
}
