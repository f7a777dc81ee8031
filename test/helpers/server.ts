import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { loadConfig } from '../../src/config/load-config.ts';
import { startServer, type RunningServer } from '../../src/main.ts';
import { PortError } from '../../src/startup/check-ports.ts';
import { logConfigSource } from '../../src/startup/store-start.ts';
import { seedPglite } from './data-dir.ts';
import { freePort } from './free-port.ts';
import { pooledPgliteStore } from './store-pool.ts';

export interface TestServer extends RunningServer {
  dataDir: string;
  /** Stops the server and removes its data directory. */
  dispose(): Promise<void>;
}

/**
 * Starts the real service on 127.0.0.1 with ephemeral ports: PGlite in a temp directory by default,
 * PostgreSQL when `databaseUrl` is given. `logger` lets a test read what the server logs.
 *
 * The connections' warm-up (`database.warm_up`) is off unless `env` turns it on: on PostgreSQL it
 * opens the reads' whole pool and the writer's connections and runs their first statements, work a
 * test's few requests never use; in the 59 files that start servers on both back ends it was about
 * half of PostgreSQL's CPU (71-74 s -> 34-39 s: docs/benchmarks.md#test-suite-postgresqls-cpu-2026-11-28).
 */
export async function startTestServer(
  env: Record<string, string> = {},
  logger?: Logger,
  opts: { fresh?: boolean } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'spyglass-test-'));
  // A copy of the run's migrated PGlite directory (test/global-setup.ts) instead of initdb per start;
  // a test's own data directory (restarts on the same data) is seeded on its first start only.
  // Without a data directory of the test's own, the store comes from the worker's pool (a PGlite
  // emptied back to the template's contents: test/helpers/store-pool.ts), unless `fresh` asks for
  // one opened as a server first opens it.
  const pooled = !env.SPYGLASS_DATABASE_URL && !env.SPYGLASS_DATA_DIR && !opts.fresh;
  const pgliteDir = env.SPYGLASS_DATA_DIR ?? dataDir;
  if (!env.SPYGLASS_DATABASE_URL && !pooled && !existsSync(join(pgliteDir, 'pglite'))) {
    seedPglite(pgliteDir);
  }
  const recent = recentLines();
  const start = async () => {
    const config = loadConfig(
      {
        SPYGLASS_PORT: '0',
        SPYGLASS_GRPC_PORT: String(await freePort()),
        SPYGLASS_DATA_DIR: dataDir,
        // Tests post spans at fixed dates (2026-01-01 ...): with the default 30 days, the retention
        // run the server starts in the background could delete them between the post and the read
        // (a clean-clone run just after midnight met it, when that run first had a partition to
        // make). Retention's own tests pass their own days.
        SPYGLASS_RETENTION_SPANS_DAYS: '3650',
        SPYGLASS_DATABASE_WARM_UP: 'false',
        ...env,
      },
      dataDir,
    );
    const log = logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'warn' }, recent);
    if (!pooled) return startServer(config, log);
    // A given store skips what serve does before opening one: say the config source as it does.
    logConfigSource(config, log);
    return startServer(config, log, { store: pooledPgliteStore() });
  };
  // freePort() releases the port it found: another test's server may take it before this one binds
  // (a CI run met it). startServer then closes what it opened and throws PortError: try again.
  let started: Awaited<ReturnType<typeof start>> | undefined;
  for (let attempt = 1; !started; attempt++) {
    started = await start().catch((err: unknown) => {
      if (attempt < 3 && !env.SPYGLASS_GRPC_PORT && err instanceof PortError) return undefined;
      throw err;
    });
  }
  const server = started;
  return {
    ...server,
    dataDir,
    dispose: async () => {
      // A stop that hangs fails the test's hook with a bare timeout: print what the server last
      // logged (its shutdown names the step it waits on) so the cause is on the record.
      const slow = setTimeout(() => {
        process.stderr.write(
          `test server still stopping after 15 s; its last log lines:\n${recent.lines.join('')}`,
        );
      }, 15_000);
      await server.stop().finally(() => clearTimeout(slow));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A pino destination keeping the last 200 lines in memory, written out only when needed. */
function recentLines(): { lines: string[]; write(line: string): void } {
  const lines: string[] = [];
  return {
    lines,
    write(line: string) {
      lines.push(line);
      if (lines.length > 200) lines.shift();
    },
  };
}
