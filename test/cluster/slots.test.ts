import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/scale/coord/redis.ts';
import { SharedSlots } from '../../src/scale/coord/slots.ts';
import { findRedisServer, startRedis, type RedisServer } from '../helpers/redis.ts';

/**
 * The shared places behind the per-key and per-address caps (src/scale/coord/slots.ts) against a real
 * redis-server: counted across holders, each worker's share while Redis is away, and the counts
 * stated again when Redis comes back empty.
 */
describe.runIf(findRedisServer() !== null)('shared slots', () => {
  let redis: RedisServer;
  const made: SharedSlots[] = [];
  const logger = pino({ level: 'silent' });

  /** A holder whose connection is up (a take before that gets the local share). */
  const slots = async (name: string, prefix: string, workers = 2) => {
    const conn = connectRedis(redis.url, 'test slots', logger, 'local share');
    await new Promise((resolve) => conn.once('ready', resolve));
    const s = new SharedSlots(conn, { prefix, instanceId: name, leaseMs: 1_000, workers });
    made.push(s);
    return s;
  };
  const takes = (s: SharedSlots, scope: string, n: number, max: number) =>
    Promise.all(Array.from({ length: n }, () => s.take(scope, max)));

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterEach(async () => {
    await Promise.all(made.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('counts every holder against one cap, and a place given back is free for any of them', async () => {
    const prefix = `t-${randomUUID()}`;
    const [x, y] = await Promise.all([slots('x', prefix), slots('y', prefix)]);
    expect(await takes(x, 'k', 2, 3)).toEqual([true, true]);
    expect(await takes(y, 'k', 2, 3)).toEqual([true, false]);
    expect(await x.take('k', 3)).toBe(false);
    expect(await y.take('other', 3)).toBe(true);
    x.give('k');
    // give() does not wait for Redis; a take of x's own, answered after it on x's connection,
    // does: only then is y's take sure to find the place given back (it raced it before).
    expect(await x.take('other', 3)).toBe(true);
    expect(await y.take('k', 3)).toBe(true);
    expect(await x.take('k', 3)).toBe(false);
  });

  it('a Redis that stops answering is treated as away: the take is decided locally, not left waiting', async () => {
    const prefix = `t-${randomUUID()}`;
    const x = await slots('x', prefix);
    expect(await x.take('k', 4)).toBe(true);
    process.kill(redis.pid, 'SIGSTOP');
    try {
      // The local share of 4 with two workers is 2: one more, then refused.
      expect(await takes(x, 'k', 2, 4)).toEqual([true, false]);
    } finally {
      process.kill(redis.pid, 'SIGCONT');
    }
  }, 30_000);

  it('a worker whose own event loop was blocked past the wait still goes by the answer Redis gave', async () => {
    const prefix = `t-${randomUUID()}`;
    const [x, y] = await Promise.all([slots('x', prefix), slots('y', prefix)]);
    expect(await y.take('k', 1)).toBe(true);
    const take = x.take('k', 1);
    // Busy for longer than the 1 s wait (a worker starting up on a loaded machine): the answer
    // (full) is on the socket when the timer fires. Alone, x's share of 1 would admit it.
    const until = Date.now() + 1_300;
    while (Date.now() < until);
    expect(await take).toBe(false);
  });

  it('a worker that has just started waits for its Redis connection rather than deciding alone', async () => {
    const prefix = `t-${randomUUID()}`;
    const y = await slots('y', prefix);
    expect(await y.take('k', 1)).toBe(true);
    // Its connection is still being made: alone, x's share of 1 would admit a second holder.
    const conn = connectRedis(redis.url, 'test slots', logger, 'local share');
    const x = new SharedSlots(conn, { prefix, instanceId: 'x', leaseMs: 1_000, workers: 2 });
    made.push(x);
    expect(conn.status).not.toBe('ready');
    expect(await x.take('k', 1)).toBe(false);
  });

  it("a just-started worker's first takes are each counted once when its connection comes up", async () => {
    const prefix = `t-${randomUUID()}`;
    const conn = connectRedis(redis.url, 'test slots', logger, 'local share');
    const x = new SharedSlots(conn, { prefix, instanceId: 'x', leaseMs: 1_000, workers: 1 });
    made.push(x);
    // The renewal sent when the connection is ready must not count them before they ask.
    expect(await takes(x, 'k', 4, 3)).toEqual([true, true, true, false]);
  });

  it('while Redis is away each worker allows its share (cap / workers), and the counts are stated again when it returns empty', async () => {
    const prefix = `t-${randomUUID()}`;
    const [x, y] = await Promise.all([slots('x', prefix), slots('y', prefix)]);
    expect(await takes(x, 'k', 2, 4)).toEqual([true, true]);
    expect(await takes(y, 'k', 3, 4)).toEqual([true, true, false]);

    await redis.stop();
    // x holds 2 of k already, its share of 4 with two workers; a fresh scope gets 2 per worker.
    expect(await x.take('k', 4)).toBe(false);
    expect(await takes(x, 'fresh', 3, 4)).toEqual([true, true, false]);
    x.give('fresh');
    x.give('fresh');

    redis = await startRedis(redis.port);
    // Back and empty: each holder states its places again, so the cap is full once more.
    await expect.poll(() => y.take('k', 4), { timeout: 10_000, interval: 100 }).toBe(false);
    expect(await x.take('k', 4)).toBe(false);
    y.give('k');
    await expect.poll(() => x.take('k', 4), { timeout: 10_000, interval: 100 }).toBe(true);
  }, 30_000);
});
