import type { Logger } from 'pino';
import type { Config } from '../config/types.ts';
import { openStore, type Store } from '../store/open-store.ts';

/** The first thing a server says: which config file it read (or that none was found). */
export function logConfigSource(config: Pick<Config, 'configPath'>, logger: Logger): void {
  logger.info(
    { configFile: config.configPath ?? null },
    config.configPath
      ? `config: read ${config.configPath}`
      : 'config: no config file (SPYGLASS_CONFIG unset, no ./spyglass.yaml); defaults and SPYGLASS_* variables apply',
  );
}

/**
 * Opens the configured database and applies pending migrations (`migrate` false: a cluster worker,
 * whose primary applied them). `spyglass serve` calls it before loading the rest of the server, so
 * the database opens (PGlite on its own thread) while the server's modules load
 * (docs/benchmarks.md#memory-and-start-up-issue-28-target-4).
 */
export function openConfiguredStore(
  config: Pick<Config, 'databaseUrl' | 'databaseReadUrl' | 'dataDir' | 'ingest'>,
  logger: Logger,
  migrate = true,
): Promise<Store> {
  return openStore({
    databaseUrl: config.databaseUrl,
    databaseReadUrl: config.databaseReadUrl,
    dataDir: config.dataDir,
    // One writer connection per commit lane: each lane commits one group at a time.
    writerConnections: config.ingest.commitLanes,
    onInfo: (msg) => logger.info(msg),
    migrate,
  });
}
