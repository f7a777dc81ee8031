import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { Config } from '../../config/types.ts';
import { checkServePorts } from '../../startup/check-ports.ts';
import { openStore } from '../../store/open-store.ts';
import { FIRST_DELAY_MS, restartBackoff } from './backoff.ts';
import { SHUTDOWN_MESSAGE } from './messages.ts';

/** How long shutdown waits for workers to drain before killing them. */
const DRAIN_TIMEOUT_MS = 25_000;

/** One of the N places a worker runs in; a replacement takes its slot. */
interface Slot {
  worker: Worker | null;
  startedAt: number;
  pendingDelayMs: number;
  restartTimer: NodeJS.Timeout | null;
}

/**
 * The primary of `serve` with SPYGLASS_WORKERS above 1: checks the ports and applies the
 * migrations once, forks the workers (they share the HTTP and gRPC listening sockets through
 * node:cluster), replaces a worker that dies, and on SIGTERM/SIGINT drains them all and exits.
 * It serves nothing itself.
 */
export async function runPrimary(config: Config, logger: Logger): Promise<void> {
  await checkServePorts(config);
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 2,
    onInfo: (msg) => logger.info(msg),
  });
  await store.close();
  logger.info(
    { workers: config.workers },
    `workers: ${config.workers} (database migrations applied by the primary, pid ${process.pid})`,
  );

  const slots: Slot[] = Array.from({ length: config.workers }, () => ({
    worker: null,
    startedAt: 0,
    pendingDelayMs: FIRST_DELAY_MS,
    restartTimer: null,
  }));
  let shuttingDown = false;
  let failedDrain = false;
  let allExited: (() => void) | null = null;
  const alive = () => slots.filter((s) => s.worker !== null).length;

  const fork = (slot: Slot) => {
    slot.restartTimer = null;
    const worker = cluster.fork();
    slot.worker = worker;
    slot.startedAt = Date.now();
    logger.info(
      { worker: worker.id, pid: worker.process.pid },
      `worker ${worker.id} started (pid ${worker.process.pid})`,
    );
  };

  cluster.on('exit', (worker, code, signal) => {
    const slot = slots.find((s) => s.worker === worker);
    if (!slot) return;
    slot.worker = null;
    const how = signal ? `signal ${signal}` : `code ${code}`;
    const fields = { worker: worker.id, pid: worker.process.pid, code, signal };
    if (shuttingDown) {
      if (code !== 0) failedDrain = true;
      logger.info(fields, `worker ${worker.id} (pid ${worker.process.pid}) exited (${how})`);
      if (alive() === 0) allExited?.();
      return;
    }
    const { delayMs, nextMs } = restartBackoff(slot.pendingDelayMs, Date.now() - slot.startedAt);
    slot.pendingDelayMs = nextMs;
    // Exit code 0 outside a shutdown: someone sent SIGTERM to the worker itself and it drained.
    const what = code === 0 ? 'exited' : 'died';
    logger.error(
      { ...fields, restartInMs: delayMs },
      `worker ${worker.id} (pid ${worker.process.pid}) ${what} (${how}); restarting in ${delayMs / 1000} s`,
    );
    slot.restartTimer = setTimeout(() => fork(slot), delayMs);
  });

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      logger.warn({ signal }, 'second signal: killing workers and exiting without waiting');
      for (const s of slots) s.worker?.process.kill('SIGKILL');
      process.exit(1);
    }
    shuttingDown = true;
    logger.info(
      { signal, workers: alive() },
      'shutting down: each worker commits its acknowledged spans',
    );
    void shutdown().then((clean) => process.exit(clean ? 0 : 1));
  };

  const shutdown = async (): Promise<boolean> => {
    for (const s of slots) {
      if (s.restartTimer) clearTimeout(s.restartTimer);
      s.restartTimer = null;
    }
    const done = new Promise<void>((resolve) => (allExited = resolve));
    if (alive() === 0) return !failedDrain;
    for (const s of slots) {
      // A worker whose IPC channel is already gone is on its way out; the exit event still comes.
      if (s.worker?.isConnected()) s.worker.send(SHUTDOWN_MESSAGE, undefined, () => {});
    }
    const timer = setTimeout(() => {
      failedDrain = true;
      logger.error(
        { workers: alive() },
        `workers still draining after ${DRAIN_TIMEOUT_MS / 1000} s: killing them`,
      );
      for (const s of slots) s.worker?.process.kill('SIGKILL');
    }, DRAIN_TIMEOUT_MS);
    await done;
    clearTimeout(timer);
    logger.info(
      failedDrain ? 'spyglass stopped (some workers did not drain cleanly)' : 'spyglass stopped',
    );
    return !failedDrain;
  };

  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  for (const s of slots) fork(s);
}
