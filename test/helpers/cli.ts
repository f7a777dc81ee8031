import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { runCli as runCliWith } from '../../src/cli/run.ts';
import { openStore, type Store, type StoreOptions } from '../../src/store/open-store.ts';
import { pooledPgliteStore } from './store-pool.ts';
import { CHILD_NODE_FLAGS } from './child-node.ts';

const BIN = fileURLToPath(new URL('../../bin/spyglass.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real CLI as its own process (`node bin/spyglass.js`, the compiled code); resolves with its
 * exit code and output (never rejects on a non-zero exit). For what only a process shows: its exit
 * status, signals, `serve`, the compiled build. Everything else uses runCliInProcess.
 */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...CHILD_NODE_FLAGS, BIN, ...args],
      { env: { ...process.env, ...env }, cwd, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * The same command run in this process (src/cli/run.ts with buffers for stdout and stderr, the
 * environment the process would get, `cwd`): same result as runCli without starting node and
 * loading modules per call. `signal` stops a command that runs until stopped (`monitor`).
 */
export async function runCliInProcess(
  args: string[],
  env: Record<string, string> = {},
  cwd = process.cwd(),
  signal?: AbortSignal,
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCliWith(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { ...process.env, ...env },
    cwd,
    signal,
    ...(pooled ? { openStore: (opts: StoreOptions) => pooledFor(pooled!, opts) } : {}),
  });
  return { code, stdout, stderr };
}

/** The stores of the current file's in-process commands by data directory, while it pools them. */
let pooled: Map<string, Promise<Store>> | null = null;

/**
 * From here to the end of the test file, runCliInProcess's commands on the embedded database run
 * on a store from the worker's pool (test/helpers/store-pool.ts) instead of opening their data
 * directory: one store per SPYGLASS_DATA_DIR, kept across the file's commands (what one command
 * writes the next reads, as on the directory) and given back after the file's last test. A seeded
 * data directory (seedPglite) and a pooled store hold the same rows, so a command sees what it saw
 * before, without a PGlite open (a copy, a database thread, PGlite's start: about a second of CPU)
 * per command. Only for files whose commands do not share their data directory with a process or
 * server that opens it itself; the CLI's own open of a data directory stays covered by runCli (a
 * process) and by files that do not call this. PostgreSQL (SPYGLASS_DATABASE_URL) opens as before.
 */
export function poolCliStores(): void {
  pooled = new Map();
  afterAll(async () => {
    const stores = [...(pooled?.values() ?? [])];
    pooled = null;
    for (const s of await Promise.allSettled(stores))
      if (s.status === 'fulfilled') await s.value.close();
  });
}

async function pooledFor(stores: Map<string, Promise<Store>>, opts: StoreOptions): Promise<Store> {
  if (opts.databaseUrl) return openStore(opts);
  let store = stores.get(opts.dataDir);
  if (!store) stores.set(opts.dataDir, (store = pooledPgliteStore()));
  // The command closes its store when it ends: this one stays open for the next command.
  return { ...(await store), close: async () => {} };
}
