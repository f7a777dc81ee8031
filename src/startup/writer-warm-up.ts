import type { Logger } from 'pino';
import type { Store } from '../store/open-store.ts';
import { warmWriter, type WarmWriterResult } from '../store/warm-writer.ts';

/**
 * Warms the writer's connections in the background (store/warm-writer.ts) once the server
 * listens: readiness never waits for it. PostgreSQL only: on PGlite the writer shares the one
 * connection with the reads, and a warm-up there would hold it from the first requests.
 * Resolves with what was done (null on PGlite, or when `enabled` is false), never rejects.
 */
export function startWriterWarmUp(
  store: Pick<Store, 'kind' | 'writer' | 'writerConnections'>,
  logger: Logger,
  enabled = true,
): Promise<WarmWriterResult | null> {
  if (store.kind !== 'postgres' || !enabled) return Promise.resolve(null);
  const t0 = performance.now();
  return warmWriter(store.writer, store.writerConnections).then((r) => {
    const ms = Math.round(performance.now() - t0);
    if (r.error !== undefined)
      logger.debug(
        { err: r.error, connections: r.connections, ms },
        'writer warm-up stopped by an error',
      );
    else logger.debug({ connections: r.connections, ms }, 'writer warm-up done');
    return r;
  });
}
