/**
 * postgres.js 3.4.x can throw from a setImmediate callback after a connection closed (the socket is
 * already null), which no caller can catch and which takes the process down: upstream issues
 * porsager/postgres#1154 and #1208, fixes #1168/#1209 unmerged. By then the driver has already
 * rejected the affected query with CONNECTION_CLOSED, so the write it drops is moot. This handler
 * swallows exactly that error while a PostgreSQL store is open; any other uncaught exception is
 * left to Node's default (crash), as before.
 */
let installed = 0;
let logWarn: (msg: string) => void = () => {};

function isDriverNullSocket(err: unknown): boolean {
  return (
    err instanceof TypeError &&
    /reading 'write'/.test(err.message) &&
    /postgres[\\/]src[\\/]connection\.js/.test(err.stack ?? '') &&
    /nextWrite/.test(err.stack ?? '')
  );
}

function onUncaught(err: Error): void {
  if (isDriverNullSocket(err)) {
    logWarn(
      'postgres.js wrote to a closed connection (upstream bug porsager/postgres#1154); ignored',
    );
    return;
  }
  // Not ours to swallow. If nobody else listens, behave as Node would without a listener.
  if (process.listenerCount('uncaughtException') > 1) return;
  process.stderr.write(`${err.stack ?? String(err)}\n`);
  process.exit(1);
}

export function guardPostgresDriver(warn: (msg: string) => void): () => void {
  logWarn = warn;
  if (installed++ === 0) process.prependListener('uncaughtException', onUncaught);
  return () => {
    if (--installed === 0) process.removeListener('uncaughtException', onUncaught);
  };
}
