import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { sha256 } from '../../src/auth/secrets.ts';
import {
  bootstrapKey,
  call,
  configFile,
  createKey,
  type Base,
  type Reply,
} from '../helpers/auth.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { nativeSpan } from '../helpers/spans.ts';

/**
 * Rate limits (docs/auth.md#rate-limits) with small limits from a config file. The window is fixed at
 * one minute in src/http/rate-limit.ts and these tests do not wait a minute: recovery is shown by
 * Retry-After / X-RateLimit-Reset staying within the window and, with Redis, by the counter's TTL
 * and by both servers accepting again once the counter is gone.
 */

const LIMITS = 'rate_limits:\n  default: 5\n  verify: 3\n  spans: 2\n';
const redisUrl = inject('redisUrl');

const statuses = (replies: Reply[]) => replies.map((r) => r.status);

async function hit(
  base: Base,
  key: string,
  n: number,
  headers: Record<string, string> = {},
): Promise<Reply[]> {
  const out: Reply[] = [];
  for (let i = 0; i < n; i++) out.push(await call(base, 'GET', '/api/settings', { key, headers }));
  return out;
}

function expectLimited(r: Reply, max: number): void {
  expect(r.status).toBe(429);
  expect(r.json).toEqual({ detail: `Rate limit exceeded: ${max} per 1 minute` });
  const retryAfter = Number(r.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

describe('rate limits (in process)', () => {
  const config = configFile(LIMITS);
  // app.inject() from 127.0.0.1, like a local client: the same hooks and limiter, no socket.
  let server: InProcessApp;
  let base: Base;
  const boot = bootstrapKey();

  beforeAll(async () => {
    server = await startInProcessApp({ SPYGLASS_API_KEYS: boot, SPYGLASS_CONFIG: config.path });
    base = server;
  });
  afterAll(async () => {
    await server?.close();
    config.remove();
  });

  it('the 6th GET in the window → 429 with Retry-After and the spec’s detail', async () => {
    const key = (await createKey(base, boot, { role: 'viewer' })).key;
    const replies = await hit(base, key, 7);
    expect(statuses(replies)).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(replies[0]!.headers.get('x-ratelimit-limit')).toBe('5');
    expect(replies.slice(0, 5).map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual([
      '4',
      '3',
      '2',
      '1',
      '0',
    ]);
    expectLimited(replies[5]!, 5);
    // Recovery: the client is told to come back within the one-minute window, not later.
    const reset = Number(replies[5]!.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(0);
    expect(reset).toBeLessThanOrEqual(60);
  });

  it('a different key has its own counter', async () => {
    const first = (await createKey(base, boot, { role: 'viewer' })).key;
    const second = (await createKey(base, boot, { role: 'viewer' })).key;
    expect(statuses(await hit(base, first, 6))).toEqual([200, 200, 200, 200, 200, 429]);
    expect(statuses(await hit(base, second, 6))).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('the same key through X-API-Key and Authorization: Bearer shares one counter', async () => {
    const key = (await createKey(base, boot, { role: 'viewer' })).key;
    const viaHeader = await hit(base, key, 3);
    const viaBearer: Reply[] = [];
    for (let i = 0; i < 3; i++)
      viaBearer.push(
        await call(base, 'GET', '/api/settings', { headers: { authorization: `Bearer ${key}` } }),
      );
    expect([...statuses(viaHeader), ...statuses(viaBearer)]).toEqual([
      200, 200, 200, 200, 200, 429,
    ]);
  });

  it('per-route limits from the config: verify 3, spans 2', async () => {
    const key = (await createKey(base, boot, { role: 'admin' })).key;
    const verify: Reply[] = [];
    for (let i = 0; i < 4; i++)
      verify.push(
        await call(base, 'POST', '/api/users/verify', {
          key,
          body: { email: 'nobody@example.com', password: 'x' },
        }),
      );
    expect(statuses(verify)).toEqual([401, 401, 401, 429]); // 401 = wrong password, from the handler
    expectLimited(verify[3]!, 3);

    const spans: Reply[] = [];
    for (let i = 0; i < 3; i++)
      spans.push(
        await call(base, 'POST', '/api/traces/spans', {
          key,
          body: [nativeSpan({ session_id: 'rl' })],
        }),
      );
    expect(statuses(spans)).toEqual([202, 202, 429]);
    expectLimited(spans[2]!, 2);
  });

  // @fastify/rate-limit's `ctx.after` is the time left in the window; docs/auth.md's text names the window.
  it('the 429 detail names the one-minute window even when the window is not fresh', async () => {
    // Made in process: the boot key has used up its key-creation budget in the tests above.
    const { key } = await server.services.keys.create({
      name: 'window',
      role: 'viewer',
      projectId: null,
      expiresAt: null,
      createdBy: 'test',
    });
    expect((await call(base, 'GET', '/api/settings', { key })).status).toBe(200);
    // 2.1 s later by the clock the limiter reads (Date only; timers stay real), so ceil(ttl) is ≤ 58 s.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 2_100);
    const replies = await hit(base, key, 5).finally(() => vi.useRealTimers());
    expect(statuses(replies)).toEqual([200, 200, 200, 200, 429]);
    expect(replies[4]!.json).toEqual({ detail: 'Rate limit exceeded: 5 per 1 minute' });
  });

  it('counts reads and writes of one path separately', async () => {
    const { key } = await server.services.keys.create({
      name: 'rw',
      role: 'admin',
      projectId: null,
      expiresAt: null,
      createdBy: 'test',
    });
    for (let i = 0; i < 2; i++)
      await call(base, 'POST', '/api/traces/spans', {
        key,
        body: [nativeSpan({ session_id: 'rw' })],
      });
    expect(
      (
        await call(base, 'POST', '/api/traces/spans', {
          key,
          body: [nativeSpan({ session_id: 'rw' })],
        })
      ).status,
    ).toBe(429);
    expect((await call(base, 'GET', '/api/traces/spans?session_id=rw', { key })).status).toBe(200);
  });

  it('probes are never limited', async () => {
    const replies: number[] = [];
    for (let i = 0; i < 12; i++) replies.push((await call(base, 'GET', '/api/liveness')).status);
    expect(replies).toEqual(Array(12).fill(200));
  });

  it('SPYGLASS_RATE_LIMITS=off turns them off even with the config file', async () => {
    const off = await startInProcessApp({
      SPYGLASS_API_KEYS: boot,
      SPYGLASS_CONFIG: config.path,
      SPYGLASS_RATE_LIMITS: 'off',
    });
    try {
      expect(statuses(await hit(off, boot, 8))).toEqual(Array(8).fill(200));
    } finally {
      await off.close();
    }
  });
});

describe.runIf(redisUrl !== null)(
  redisUrl !== null
    ? 'rate limits shared through Redis'
    : 'rate limits shared through Redis (SKIPPED: no redis-server in this run; see test/global-setup.ts)',
  () => {
    const config = configFile(LIMITS);
    // Several bootstrap keys, known to both instances; each test takes its own, so counters start at 0.
    const keys = [
      bootstrapKey(),
      bootstrapKey(),
      bootstrapKey(),
      bootstrapKey(),
      bootstrapKey(),
    ] as const;
    let a: InProcessApp;
    let b: InProcessApp;
    let redis: Redis;
    const cluster = `t-${randomUUID()}`;

    beforeAll(async () => {
      redis = new Redis(redisUrl!, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      // Two independent instances (each its own store and app state), one Redis; in-process, as
      // nothing here needs a socket (test/helpers/in-process.ts).
      const env = {
        SPYGLASS_API_KEYS: keys.join(','),
        SPYGLASS_CONFIG: config.path,
        SPYGLASS_REDIS_URL: redisUrl!,
        SPYGLASS_CLUSTER_NAME: cluster,
      };
      [a, b] = await Promise.all([startInProcessApp(env), startInProcessApp(env)]);
      // The limiter connects to Redis in the background and lets requests through uncounted until it
      // has (skipOnError). Wait, bounded, until each instance really counts: X-RateLimit-Reset > 0.
      for (const s of [a, b]) {
        const counts = async () => {
          const r = await call(s.httpUrl, 'GET', '/api/settings', { key: keys[3] });
          return Number(r.headers.get('x-ratelimit-reset')) > 0 || r.status === 429;
        };
        // In a hook, so vi.waitFor (expect.poll is for tests).
        await vi.waitFor(
          async () => {
            if (!(await counts())) throw new Error('the instance never started counting in Redis');
          },
          { timeout: 15_000, interval: 50 },
        );
      }
    });
    afterAll(async () => {
      await Promise.all([a?.close(), b?.close()]);
      redis?.disconnect();
      config.remove();
    });

    it('two instances share one counter: requests split across both hit 429 at the combined limit', async () => {
      const key = keys[0];
      const replies: Reply[] = [];
      for (const s of [a, b, a, b, a, b, a])
        replies.push(await call(s.httpUrl, 'GET', '/api/settings', { key }));
      expect(statuses(replies)).toEqual([200, 200, 200, 200, 200, 429, 429]);
      expectLimited(replies[5]!, 5);

      // The counter lives in Redis under the cluster's name, expiring within the one-minute window.
      const counters = (await redis.keys(`${cluster}:rl-*`)).filter(
        (k) => k.includes(sha256(key).slice(0, 24)) && k.includes('/api/settings'),
      );
      expect(counters).toHaveLength(1);
      expect(Number(await redis.get(counters[0]!))).toBe(7);
      const ttl = await redis.pttl(counters[0]!);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);

      // Once the window's counter is gone (deleted here instead of waiting for its TTL), both accept again.
      await redis.del(counters[0]!);
      expect(
        statuses([
          await call(a.httpUrl, 'GET', '/api/settings', { key }),
          await call(b.httpUrl, 'GET', '/api/settings', { key }),
        ]),
      ).toEqual([200, 200]);
    });

    it('span ingest alternated between the instances accepts exactly rate_limits.spans in total', async () => {
      const replies: Reply[] = [];
      for (const s of [a, b, a, b])
        replies.push(
          await call(s.httpUrl, 'POST', '/api/traces/spans', {
            key: keys[4],
            body: [nativeSpan({ session_id: 'shared-spans' })],
          }),
        );
      expect(statuses(replies)).toEqual([202, 202, 429, 429]);
      expectLimited(replies[2]!, 2);
    });

    it('a different key still has its own counter across instances', async () => {
      expect(statuses(await hit(a.httpUrl, keys[1], 3))).toEqual([200, 200, 200]);
      expect(statuses(await hit(b.httpUrl, keys[1], 3))).toEqual([200, 200, 429]);
      expect(statuses(await hit(b.httpUrl, keys[2], 5))).toEqual([200, 200, 200, 200, 200]);
      expect(statuses(await hit(a.httpUrl, keys[2], 1))).toEqual([429]);
    });
  },
);
