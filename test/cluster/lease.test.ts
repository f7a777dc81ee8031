import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Leadership } from '../../src/scale/coord/leadership.ts';
import { closeRedis, connectRedis } from '../../src/scale/coord/redis.ts';
import { openStore, type Store } from '../../src/store/open-store.ts';
import { createPgDatabase, pgAdminUrl } from '../helpers/backends.ts';
import { captureLog, type CapturedLog } from '../helpers/log-capture.ts';
import { startRedis } from '../helpers/redis.ts';

/**
 * Two Leadership objects in one process over one real Redis and one real PostgreSQL, driven round
 * by round with tick() (a "paused" instance is one whose rounds are not run). Short leases.
 */
const redisUrl = inject('redisUrl');
const LEASE_MS = 600;

describe.runIf(redisUrl && pgAdminUrl)('leader lease with fencing', () => {
  let store: Store;
  const connections: Redis[] = [];
  beforeAll(async () => {
    store = await openStore({ databaseUrl: await createPgDatabase(), dataDir: 'unused' });
  });
  afterAll(async () => {
    for (const r of connections) await closeRedis(r);
    await store?.close();
  });

  interface Node {
    id: string;
    leadership: Leadership;
    redis: Redis;
    log: CapturedLog;
    /** onLead / onStepDown calls, in order. */
    events: string[];
  }

  async function node(cluster: string, id: string, url: string): Promise<Node> {
    const log = captureLog();
    const redis = connectRedis(url, 'leader lease', log.logger, 'test');
    connections.push(redis);
    if (redis.status !== 'ready') await new Promise((r) => redis.once('ready', r));
    const events: string[] = [];
    const leadership = new Leadership({
      redis,
      db: store.db,
      clusterName: cluster,
      instanceId: id,
      leaseMs: LEASE_MS,
      logger: log.logger,
      onLead: (token) => void events.push(`lead ${token}`),
      onStepDown: (reason) => void events.push(`down ${reason}`),
    });
    return { id, leadership, redis, log, events };
  }

  /** Runs rounds of `n` until `done`, at the pace of the real loop; bounded. */
  async function tickUntil(n: Node, done: () => boolean, boundMs = 5 * LEASE_MS): Promise<void> {
    const until = Date.now() + boundMs;
    while (!done()) {
      if (Date.now() > until)
        throw new Error(
          `${n.id}: condition not reached within ${boundMs} ms; events ${n.events.join(', ')}`,
        );
      const delay = await n.leadership.tick();
      await new Promise((r) => setTimeout(r, Math.max(10, delay)));
    }
  }

  const messages = (n: Node) => n.log.lines.map((l) => String(l.msg));

  it('one leads; a paused leader is replaced within a lease by a higher token, and steps down on its next round; stop hands over at once', async () => {
    const cluster = `t-${randomUUID()}`;
    const a = await node(cluster, 'a', redisUrl!);
    const b = await node(cluster, 'b', redisUrl!);
    await a.leadership.tick();
    for (let i = 0; i < 4; i++) {
      await b.leadership.tick();
      await a.leadership.tick();
    }
    expect([a.leadership.leading, b.leadership.leading]).toEqual([true, false]);
    const first = a.leadership.currentToken!;
    expect(messages(a)).toContain(
      `leader: this instance runs the background jobs (token ${first})`,
    );

    // A pauses (no rounds): its lease runs out and B, trying when it would expire, takes over.
    await tickUntil(b, () => b.leadership.leading);
    expect(b.leadership.currentToken!).toBeGreaterThan(first);
    expect(a.leadership.leading).toBe(true); // it has not noticed yet

    await a.leadership.tick();
    expect(a.leadership.leading).toBe(false);
    expect(a.events).toEqual([`lead ${first}`, 'down lease taken by b']);

    // B stops: it releases the lease, and A's very next round takes it.
    await b.leadership.stop();
    expect(b.events.at(-1)).toBe('down shutting down');
    await a.leadership.tick();
    expect(a.leadership.leading).toBe(true);
    await a.leadership.stop();
  });

  it('a leader cut off from Redis keeps leading until a newer leader exists, then its fence stops it', async () => {
    const cluster = `t-${randomUUID()}`;
    const a = await node(cluster, 'a', redisUrl!);
    const b = await node(cluster, 'b', redisUrl!);
    await a.leadership.tick();
    await b.leadership.tick();
    expect(a.leadership.leading).toBe(true);

    a.redis.disconnect(); // a partition between A and Redis only
    await a.leadership.tick();
    expect(a.leadership.leading).toBe(true);
    expect(
      messages(a).some((m) => m.startsWith('leader: cannot renew the lease (redis unavailable)')),
    ).toBe(true);

    await tickUntil(b, () => b.leadership.leading);
    await a.leadership.tick(); // still no Redis, but the database knows B's newer token
    expect(a.leadership.leading).toBe(false);
    expect(a.events.at(-1)).toBe(
      `down fenced: a newer leader holds token ${b.leadership.currentToken}`,
    );
    await b.leadership.stop();
  });

  it('Redis stopped: the leader keeps leading and the follower waits; Redis back (empty): renewals resume and a later takeover gets a token above the old ones', async () => {
    const own = await startRedis();
    const cluster = `t-${randomUUID()}`;
    const a = await node(cluster, 'a', own.url);
    const b = await node(cluster, 'b', own.url);
    try {
      await tickUntil(a, () => a.leadership.leading);
      await b.leadership.tick();
      const token = a.leadership.currentToken!;

      await own.stop();
      for (let i = 0; i < 3; i++) {
        await a.leadership.tick();
        await b.leadership.tick();
        await new Promise((r) => setTimeout(r, LEASE_MS / 3));
      }
      expect([a.leadership.leading, b.leadership.leading]).toEqual([true, false]);

      const again = await startRedis(own.port);
      try {
        await tickUntil(
          a,
          () => messages(a).includes(`leader: lease renewed again (token ${token})`),
          10_000,
        );
        await b.leadership.tick();
        expect([a.leadership.leading, b.leadership.leading]).toEqual([true, false]);

        // The restarted Redis counts tokens from 1 again; the takeover still gets a newer one.
        await a.leadership.stop();
        await tickUntil(b, () => b.leadership.leading);
        expect(b.leadership.currentToken!).toBeGreaterThan(token);
        await b.leadership.stop();
      } finally {
        await again.stop();
      }
    } finally {
      await own.stop();
    }
  });
});
