import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/**
 * ioredis (a CommonJS package of about 150 files, ~0.1 s of CPU to load) is loaded with the first
 * connection, so a server without Redis, the default, does not load it at start-up
 * (docs/benchmarks.md#start-up-fourth-round-2026-11-27-0800-1000-utc). `connectRedis` stays
 * synchronous, so it is required, not imported.
 */
const loadIoredis = () => createRequire(import.meta.url)('ioredis') as typeof import('ioredis');

/**
 * One Redis connection for one coordination purpose (live events, cache invalidation, leases).
 * Commands fail fast while Redis is away instead of queueing (callers degrade: local fan-out,
 * a kept lease, cached settings), and the connection retries forever, at most every 2 s. An outage
 * is logged once as a warning that says what degrades, and its end once as info.
 */
export function connectRedis(
  url: string,
  purpose: string,
  logger: Logger,
  degraded: string,
  opts: RedisOptions = {},
): Redis {
  const { Redis } = loadIoredis();
  const redis = new Redis(url, {
    connectTimeout: 2000,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    ...opts,
  });
  let down = false;
  redis.on('error', (err: Error) => {
    if (down) return;
    down = true;
    logger.warn(
      { purpose, err: err.message },
      `redis unavailable (${purpose}): ${degraded}; retrying`,
    );
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info({ purpose }, `redis back (${purpose})`);
  });
  return redis;
}

/** Ends a connection: QUIT when it is up, otherwise a plain disconnect (QUIT would wait for it). */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
}
