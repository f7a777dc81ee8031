import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { readKey } from '../auth/authenticate.ts';
import { sha256 } from '../auth/secrets.ts';
import type { RateLimitConfig } from '../config/types.ts';
import { SpyglassError } from '../errors.ts';

export type LimitName = Exclude<keyof RateLimitConfig, 'enabled'>;

/**
 * Per-route limits of spec §8, keyed by API key (or client IP without one). Counters live in
 * process memory, or in Redis when configured so every worker shares them.
 */
export async function installRateLimits(
  app: FastifyInstance,
  limits: RateLimitConfig,
  redisUrl: string | undefined,
  isTrusted: (address: string) => boolean,
): Promise<void> {
  if (!limits.enabled) return;
  const redis = redisUrl ? new Redis(redisUrl, { connectTimeout: 2000, maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false }) : undefined;
  if (redis) {
    redis.on('error', (err: Error) => app.log.warn({ err: err.message }, 'redis error (rate limits)'));
    app.addHook('onClose', async () => void (await redis.quit().catch(() => redis.disconnect())));
  }
  await app.register(rateLimit, {
    global: true,
    max: (req: FastifyRequest) => limits[(req.routeOptions.config.rateLimitKey as LimitName | undefined) ?? 'default'] ?? limits.default,
    timeWindow: 60_000,
    // One counter per route and method; routes that share a limit (the two OTLP paths) share one.
    keyGenerator: (req: FastifyRequest) =>
      `${req.routeOptions.config.rateLimitKey ?? `${req.method} ${req.routeOptions.url ?? 'unknown'}`}|${clientKey(req, isTrusted)}`,
    redis,
    nameSpace: 'spyglass-rl-',
    skipOnError: true,
    allowList: (req: FastifyRequest) => req.routeOptions.config.access === 'public',
    // ctx.after is the time left in the window; the message names the window itself.
    errorResponseBuilder: (_req, ctx) =>
      new SpyglassError('rate_limited', `Rate limit exceeded: ${ctx.max} per 1 minute`, { retryAfter: Math.ceil(ctx.ttl / 1000) }),
  });
}

/**
 * Who a counter belongs to: a user behind a trusted proxy (which sends one key for everybody),
 * else the API key, else the client address (X-Forwarded-For counts only from trusted proxies).
 */
function clientKey(req: FastifyRequest, isTrusted: (address: string) => boolean): string {
  const user = req.headers['x-user-id'];
  if (user && isTrusted(req.socket.remoteAddress ?? '')) return `user:${String(user)}`;
  const key = readKey(req.headers);
  return key ? `key:${sha256(key).slice(0, 24)}` : `ip:${req.ip}`;
}
