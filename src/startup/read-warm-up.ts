import type { Logger } from 'pino';
import type { Store } from '../store/open-store.ts';
import { warmReads, type ReadLimits, type WarmReadsResult } from '../store/warm-reads.ts';
import { MAX_TREE_SPANS, SESSIONS_LIMIT } from '../sessions/sessions-service.ts';
import { SPANS_LIMIT } from '../traces/spans-service.ts';

/** The services' limits as their reads ask them: a default page and one more row, the tree's cap and one more. */
export const READ_LIMITS: ReadLimits = {
  treeSpans: MAX_TREE_SPANS + 1,
  spans: SPANS_LIMIT.default + 1,
  sessions: SESSIONS_LIMIT.default + 1,
};

export interface ReadWarmUp {
  /** Resolves with what was done: at the end, at a failure, or once stopped. */
  readonly done: Promise<WarmReadsResult | null>;
  /** Stops after the statements in flight (each a read of a few ms) and waits for them. */
  stop(): Promise<void>;
}

/**
 * Starts warming the reads' pool connections in the background (store/warm-reads.ts), once the
 * server listens: readiness never waits for it. PostgreSQL only: PGlite is one connection, which
 * the first reads warm by themselves, and a warm-up there would hold its one backend from the
 * first requests (docs/benchmarks.md, the session tree's first reads per connection). Nothing
 * runs when `enabled` is false (`database.warm_up`).
 */
export function startReadWarmUp(
  store: Pick<Store, 'kind' | 'db' | 'readConnections'>,
  logger: Logger,
  enabled = true,
): ReadWarmUp {
  if (store.kind !== 'postgres' || !enabled)
    return { done: Promise.resolve(null), stop: () => Promise.resolve() };
  const abort = new AbortController();
  const t0 = performance.now();
  const done = warmReads(store.db, {
    connections: store.readConnections,
    signal: abort.signal,
    limits: READ_LIMITS,
  }).then((r) => {
    const ms = Math.round(performance.now() - t0);
    if (r.error !== undefined)
      logger.debug(
        { err: r.error, statements: r.statements, ms },
        'read warm-up stopped by an error',
      );
    else logger.debug({ statements: r.statements, finished: r.finished, ms }, 'read warm-up done');
    return r;
  });
  return {
    done,
    stop: async () => {
      abort.abort();
      await done;
    },
  };
}
