import type { Redis } from 'ioredis';
import { closeRedis } from '../coord/redis.ts';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';

/** rate-limiter-flexible, loaded with the first request counted rather than at start. */
type Lib = typeof import('./rate-limiter-lib.ts');
let lib: Promise<Lib> | undefined;
const loadLib = (): Promise<Lib> => (lib ??= import('./rate-limiter-lib.ts'));

export type TakeResult = { ok: true } | { ok: false; retryAfterSeconds: number; limit: number };

/**
 * Fixed-window request counters (one minute) for everything that is not a plain Fastify route
 * as well as for those: gRPC calls, WebSocket upgrades, pre-authentication checks by address.
 * Counters live in process memory, or in Redis when configured so that every instance shares them;
 * a Redis outage falls back to per-process counters rather than refusing or admitting everything.
 */
export class Limiter {
  private readonly buckets = new Map<string, RateLimiterAbstract>();

  /** `redis`: a connection to count in (see connectRedis), `prefix` the cluster's name; none = process memory. */
  constructor(
    /** The shared counters' connection; the per-route limits (src/http/rate-limit.ts) count through it too. */
    readonly redis: Redis | undefined = undefined,
    private readonly prefix = 'spyglass',
  ) {}

  /**
   * Counts one request of `who` against `bucket`, which allows `perMinute` a minute; `weight`
   * counts it as that many (a span-weighted limit counts a batch's spans).
   */
  async take(bucket: string, perMinute: number, who: string, weight = 1): Promise<TakeResult> {
    const { RateLimiterRes } = await loadLib();
    try {
      await (await this.bucket(bucket, perMinute)).consume(who, weight);
      return { ok: true };
    } catch (res) {
      if (res instanceof RateLimiterRes)
        return {
          ok: false,
          retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
          limit: perMinute,
        };
      throw res;
    }
  }

  /** Whether `who` has used up `bucket` this window, without counting a request. */
  async peek(bucket: string, perMinute: number, who: string): Promise<TakeResult> {
    try {
      const res = await (await this.bucket(bucket, perMinute)).get(who);
      if (res && res.consumedPoints >= perMinute)
        return {
          ok: false,
          retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
          limit: perMinute,
        };
    } catch {
      // A counter that cannot be read admits the request; take() still counts it.
    }
    return { ok: true };
  }

  async close(): Promise<void> {
    if (this.redis) await closeRedis(this.redis);
  }

  private async bucket(name: string, perMinute: number): Promise<RateLimiterAbstract> {
    const { RateLimiterMemory, RateLimiterRedis } = await loadLib();
    const id = `${name}:${perMinute}`;
    let limiter = this.buckets.get(id);
    if (!limiter) {
      const opts = { keyPrefix: `${this.prefix}:rl:${name}`, points: perMinute, duration: 60 };
      limiter = this.redis
        ? new RateLimiterRedis({
            ...opts,
            storeClient: this.redis,
            insuranceLimiter: new RateLimiterMemory(opts),
          })
        : new RateLimiterMemory(opts);
      this.buckets.set(id, limiter);
    }
    return limiter;
  }
}
