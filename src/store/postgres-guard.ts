/**
 * postgres.js 3.4.x can throw from a setImmediate callback after a connection closed (the socket is
 * already null), which no caller can catch and which takes the process down: upstream issues
 * porsager/postgres#1154 and #1208, fixes #1168/#1209 unmerged. By then the driver has already
 * rejected the affected query with CONNECTION_CLOSED, so the write it drops is moot. This handler
 * swallows exactly that error; any other uncaught exception is left to Node's default (crash).
 * The driver as patched at install (patches/postgres+3.4.9.patch, docs/architecture.md) no longer
 * throws it; the guard stays for a driver installed without the patch (`npm install
 * --ignore-scripts`), where it keeps the process up though the connection stays unusable.
 *
 * An uncaughtException listener is the process's, not a store's: the process entry that uses
 * PostgreSQL installs it once, for the life of the process (`spyglass serve` and its workers in
 * src/cli/serve.ts, the CLI's local commands in src/cli/remote.ts). Installed per store, with a
 * count of open stores and the last store's logger, two apps in one process (tests) shared one
 * listener that logged through whichever logger came last, and a late error after the last store
 * closed (the very case of the upstream bug) was no longer caught. Tests build stores in-process
 * without it: vitest's own listener sees an uncaught error whether or not this one runs first.
 */
const MARK = Symbol.for('spyglass.postgresDriverGuard');

/** That error; also as vitest hands it over from a test worker (serialised: no TypeError class). */
export function isDriverNullSocket(err: unknown): boolean {
  const e = err as { name?: unknown; message?: unknown; stack?: unknown } | null;
  const stack = typeof e?.stack === 'string' ? e.stack : '';
  return (
    (err instanceof TypeError || e?.name === 'TypeError') &&
    typeof e?.message === 'string' &&
    /reading 'write'/.test(e.message) &&
    /postgres[\\/]src[\\/]connection\.js/.test(stack) &&
    /nextWrite/.test(stack)
  );
}

/** Installs the guard on this process (once: later calls keep the first `warn`). */
export function guardPostgresDriver(warn: (msg: string) => void): void {
  const listeners = process.listeners('uncaughtException');
  if (listeners.some((l) => MARK in l)) return;
  const onUncaught = Object.assign(
    (err: Error) => {
      if (isDriverNullSocket(err)) {
        warn(
          'postgres.js wrote to a closed connection (upstream bug porsager/postgres#1154); ignored',
        );
        return;
      }
      // Not ours to swallow. If nobody else listens, behave as Node would without a listener.
      if (process.listeners('uncaughtException').some((l) => l !== onUncaught)) return;
      process.stderr.write(`${err.stack ?? String(err)}\n`);
      process.exit(1);
    },
    { [MARK]: true },
  );
  process.prependListener('uncaughtException', onUncaught);
}
