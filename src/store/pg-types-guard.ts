import type { Logger } from 'pino';

/**
 * postgres.js runs an array-types query (`pg_catalog.pg_type`, `typarray`) first on every new
 * connection and drops its promise (porsager/postgres#1192, #1223, open in 3.4.9): when that query
 * fails, because the database went away while a connection opened, the error escapes as an
 * unhandled rejection, which ends a Node process. The query that needed the connection fails or
 * retries on its own, so the escaped copy is only logged.
 */
export function isDroppedTypesQuery(err: unknown): boolean {
  const query = (err as { query?: unknown } | null)?.query;
  return (
    typeof query === 'string' && query.includes('pg_catalog.pg_type') && query.includes('typarray')
  );
}

const MARK = Symbol.for('spyglass.droppedTypesQueryGuard');

/**
 * In the server process (`spyglass serve`, src/cli/serve.ts, its process entry): logs that escaped
 * rejection as a warning; any other unhandled rejection still ends the process, as Node's default
 * does. The listener is the process's, so it is installed there once, not by a store; a second call
 * finds it (by its mark) and does nothing.
 */
export function guardDroppedTypesQuery(logger: Logger): void {
  if (process.listeners('unhandledRejection').some((l) => MARK in l)) return;
  const onRejection = Object.assign(
    (err: unknown) => {
      if (isDroppedTypesQuery(err)) {
        logger.warn(
          { err: (err as Error).message },
          'database connection failed while opening (retried)',
        );
        return;
      }
      throw err;
    },
    { [MARK]: true },
  );
  process.on('unhandledRejection', onRejection);
}
