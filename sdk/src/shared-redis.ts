/**
 * The Redis connection of the shared circuit breakers: a client the user passes (anything with
 * ioredis's eval/evalsha/quit shapes), or one the SDK opens from a URL. ioredis is loaded with a
 * dynamic import only then, so an SDK user who never shares breakers never loads it, and no ioredis
 * type appears in the SDK's published types.
 */
import { createHash } from 'node:crypto';

/** The few commands the shared breakers need; an ioredis `Redis` (or `Cluster`) instance fits. */
export interface SharedBreakerRedis {
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  evalsha(sha1: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  quit(): Promise<unknown>;
}

/** What the SDK keeps of a connection it opened itself. */
interface OwnedRedis extends SharedBreakerRedis {
  readonly status: string;
  once(event: 'ready' | 'error', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  removeListener(event: 'ready' | 'error', listener: () => void): unknown;
  disconnect(): void;
}

/** A script run by its SHA1 (Redis keeps it cached), sent in full once when Redis answers NOSCRIPT. */
export class Script {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: SharedBreakerRedis, key: string, args: (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, 1, key, ...args);
    } catch (err) {
      if (!String((err as Error)?.message).startsWith('NOSCRIPT')) throw err;
      return redis.eval(this.source, 1, key, ...args);
    }
  }
}

/**
 * Opens a connection from a URL. Commands fail at once while it is down instead of queueing (the
 * breakers then fall back to the local ones) and it reconnects forever, at most every 2 s.
 * Connection errors are reported by the breakers' own outage warning, not here.
 */
export async function openRedis(url: string): Promise<OwnedRedis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    connectTimeout: 5000,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (times: number) => Math.min(times * 200, 2000),
  });
  redis.on('error', () => undefined);
  return redis as unknown as OwnedRedis;
}

/** Resolves when the connection is ready, or after ms (the caller then treats Redis as down). */
export function whenReady(redis: OwnedRedis, ms: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.removeListener('ready', done);
      redis.removeListener('error', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    redis.once('ready', done);
    redis.once('error', done);
  });
}

/** QUIT when it is up, otherwise a plain disconnect (QUIT would wait for a reconnection). */
export async function closeOwned(redis: OwnedRedis): Promise<void> {
  if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
}

export type { OwnedRedis };
