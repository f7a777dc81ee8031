import { dropPrewarmedThread, prewarmPgliteThread } from '../store/pglite-thread.ts';
import { boundHeapGrowth, deferWasmTierUp } from '../store/pglite-wasm.ts';

/**
 * `spyglass serve`: runs until SIGTERM/SIGINT, then shuts down cleanly (a second signal forces exit).
 * SPYGLASS_WORKERS above 1 runs a primary and that many worker processes instead (src/scale/cluster/).
 */
export async function runServe(): Promise<void> {
  // The embedded database's thread and PGlite's wasm compile start first, before the config and
  // the server's modules load (this module statically imports only those two store modules),
  // with V8's WebAssembly tier-up deferred. Unless the environment selects PostgreSQL, that is the
  // likely back end; a config file that selects it ends the thread unused (about half a second of
  // background CPU spent).
  if (!process.env.SPYGLASS_DATABASE_URL) {
    deferWasmTierUp();
    prewarmPgliteThread();
  }
  const [{ loadConfig }, { createLogger }, { checkServePorts }, storeStart, pgTypes, pgGuard] =
    await Promise.all([
      import('../config/load-config.ts'),
      import('../logger.ts'),
      import('../startup/check-ports.ts'),
      import('../startup/store-start.ts'),
      import('../store/pg-types-guard.ts'),
      import('../store/postgres-guard.ts'),
    ]);
  const { logConfigSource, openConfiguredStore } = storeStart;
  const config = loadConfig();
  if (config.databaseUrl) dropPrewarmedThread();
  else boundHeapGrowth(); // the embedded database: its thread sets the pace, not this one's GC
  const logger = createLogger(config.logLevel);
  // Process-wide hooks for postgres.js's known escapes, installed here, by the process entry (the
  // primary and every worker run it), not per store: see src/store/postgres-guard.ts.
  pgTypes.guardDroppedTypesQuery(logger);
  // Both back ends go through postgres.js (the embedded one over a thread: src/store/pglite-thread.ts).
  pgGuard.guardPostgresDriver((msg) => logger.warn(msg));
  if (config.workers > 1) {
    const { runClustered } = await import('../scale/cluster/index.ts');
    return runClustered(config, logger);
  }
  logConfigSource(config, logger);
  await checkServePorts(config);
  // The database opens (PGlite on its own thread) while the server's modules load, below: on an
  // existing data directory the two took about the same time one after the other.
  const store = openConfiguredStore(config, logger);
  store.catch(() => {}); // startServer awaits it and reports its failure
  // Loaded here, not at the top, so other commands start without the whole server.
  const { startServer } = await import('../main.ts').catch(async (err: unknown) => {
    await store.then((s) => s.close()).catch(() => {});
    throw err;
  });
  // The handlers are in place before the server starts: a signal while it starts (its port may
  // already be open and taking requests) stops it once started, never kills it half-way.
  let stop: (() => void) | null = null;
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    logger.info({ signal }, 'shutting down: committing acknowledged spans');
    stop?.();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  const server = await startServer(config, logger, { store });
  stop = () =>
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  if (signals > 0) stop();
}
