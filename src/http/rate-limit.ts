import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { readKey } from '../auth/authenticate.ts';
import { sha256 } from '../auth/secrets.ts';
import type { RateLimitConfig } from '../config/types.ts';
import { SpyglassError } from '../errors.ts';
import type { Limiter } from '../scale/limits/limiter.ts';

export type LimitName = Exclude<
  keyof RateLimitConfig,
  'enabled' | 'perAddress' | 'authFailures' | 'spansPerMinute'
>;

/**
 * Two layers (docs/auth.md). First, before authentication, every request of one client address
 * counts against `perAddress` on the shared limiter, so requests without a valid key are limited
 * too. Then, after authentication, the per-route limits of docs/auth.md#rate-limits, keyed by API key (public
 * routes: by client address). Only routes with `config.rateLimit: false` (the probes) skip both.
 */
export async function installRateLimits(
  app: FastifyInstance,
  limits: RateLimitConfig,
  isTrusted: (address: string) => boolean,
  limiter: Limiter,
  clusterName: string,
): Promise<void> {
  if (!limits.enabled) return;
  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.config.rateLimit === false) return;
    const r = await limiter.take('address', limits.perAddress, req.ip);
    if (!r.ok)
      throw new SpyglassError('rate_limited', `Rate limit exceeded: ${r.limit} per 1 minute`, {
        retryAfter: r.retryAfterSeconds,
      });
  });

  // The limiter's connection, if it has one (closed with the services): one per process for every counter.
  const redis = limiter.redis;
  // Route-level hooks run after the global authentication hook: by then a presented key is known
  // to be valid, so keying a counter by it cannot be dodged with made-up keys.
  await app.register(rateLimit, {
    global: true,
    max: (req: FastifyRequest) =>
      limits[(req.routeOptions.config.rateLimitKey as LimitName | undefined) ?? 'default'] ??
      limits.default,
    timeWindow: 60_000,
    // One counter per route and method; routes that share a limit (the two OTLP paths) share one.
    keyGenerator: (req: FastifyRequest) =>
      `${req.routeOptions.config.rateLimitKey ?? `${req.method} ${req.routeOptions.url ?? 'unknown'}`}|${clientKey(req, isTrusted)}`,
    redis,
    // Under the cluster's name, like every key of a cluster: deployments sharing one Redis count apart.
    nameSpace: `${clusterName}:rl-`,
    skipOnError: true,
    // ctx.after is the time left in the window; the message names the window itself.
    errorResponseBuilder: (_req, ctx) =>
      new SpyglassError('rate_limited', `Rate limit exceeded: ${ctx.max} per 1 minute`, {
        retryAfter: Math.ceil(ctx.ttl / 1000),
      }),
  });
}

/**
 * Who a counter belongs to: a user behind a trusted proxy (which sends one key for everybody),
 * else the API key, else the client address (X-Forwarded-For counts only from trusted proxies).
 * Public routes authenticate nobody, so a key sent to them proves nothing: the address counts.
 */
function clientKey(req: FastifyRequest, isTrusted: (address: string) => boolean): string {
  if (req.routeOptions.config.access === 'public') return `ip:${req.ip}`;
  const user = req.headers['x-user-id'];
  if (user && isTrusted(req.socket.remoteAddress ?? '')) return `user:${String(user)}`;
  const key = readKey(req.headers);
  return key ? `key:${sha256(key).slice(0, 24)}` : `ip:${req.ip}`;
}
