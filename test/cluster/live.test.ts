import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bootstrapKey, call, expectStatus } from '../helpers/auth.ts';
import { createPgDatabase } from '../helpers/backends.ts';
import { openWs } from '../helpers/graphql-ws.ts';
import { findRedisServer, startRedis, type RedisServer } from '../helpers/redis.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { nativeSpan } from '../helpers/spans.ts';
import { SseClient, type SseEvent } from '../helpers/sse.ts';

/**
 * Live events across instances (docs/api.md#several-instances-spyglass_redis_url): two instances on one PostgreSQL database and their own
 * redis-server (this file stops and restarts it), one cluster. Whichever instance stores a span,
 * every instance's SSE and GraphQL clients get it, with the same increasing ids everywhere.
 */
const pgAdminUrl = inject('pgAdminUrl');
const admin = bootstrapKey();
const auth = { 'x-api-key': admin };

const sessionOf = (e: SseEvent): string =>
  (JSON.parse(e.data) as { session_id: string }).session_id;
const tagged = (client: SseClient, tag: string) =>
  client.events.filter((e) => e.event === 'span:new' && sessionOf(e).startsWith(tag));

function ingest(server: TestServer, sessions: string[]) {
  return call(server.httpUrl, 'POST', '/api/traces/spans', {
    key: admin,
    body: sessions.map((s) => nativeSpan({ session_id: s })),
  });
}

/** Posts a marker on `from` until a client on `to` gets one with an id: the relay runs both ways between them. */
async function relayed(from: TestServer, to: TestServer, ms = 15_000): Promise<void> {
  const client = await SseClient.open(`${to.httpUrl}/api/live/events`, auth);
  const tag = `marker-${randomUUID()}`;
  const deadline = Date.now() + ms;
  try {
    while (!tagged(client, tag).some((e) => e.id !== undefined)) {
      if (Date.now() > deadline)
        throw new Error(`no span from ${from.httpUrl} reached ${to.httpUrl} within ${ms} ms`);
      expectStatus(await ingest(from, [tag]), 202, 'marker');
      await client
        .waitFor(() => tagged(client, tag).some((e) => e.id !== undefined), 200)
        .catch(() => undefined);
    }
  } finally {
    client.close();
  }
}

describe.runIf(pgAdminUrl !== null && findRedisServer() !== null)(
  'live events across instances',
  () => {
    let redis: RedisServer;
    let env: Record<string, string>;
    let sql: postgres.Sql;
    const servers: TestServer[] = [];
    let a: TestServer;
    let b: TestServer;
    /** What A logs, one JSON line each. */
    const logsA: { level: number; msg: string }[] = [];

    beforeAll(async () => {
      redis = await startRedis();
      const databaseUrl = await createPgDatabase();
      sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
      env = {
        SPYGLASS_DATABASE_URL: databaseUrl,
        SPYGLASS_REDIS_URL: redis.url,
        SPYGLASS_CLUSTER_NAME: `t-${randomUUID()}`,
        SPYGLASS_API_KEYS: admin,
        SPYGLASS_RATE_LIMITS: 'off',
      };
      // A write may carry several lines.
      const sink = new Writable({
        write: (chunk: Buffer, _enc, done) => {
          for (const line of chunk.toString().split('\n'))
            if (line.trim()) logsA.push(JSON.parse(line) as { level: number; msg: string });
          done();
        },
      });
      servers.push((a = await startTestServer(env, pino({ level: 'info' }, sink)))); // first alone: it migrates the database
      servers.push((b = await startTestServer(env)));
      await relayed(a, b);
      await relayed(b, a);
    });
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.dispose()));
      await redis?.stop();
      await sql?.end({ timeout: 5 });
    });

    it('SSE and GraphQL-WS clients on either instance get spans stored through the other, with the same increasing ids', async () => {
      const onA = await SseClient.open(`${a.httpUrl}/api/live/events`, auth);
      const onB = await SseClient.open(`${b.httpUrl}/api/live/events`, auth);
      const ws = await openWs(a.httpUrl, { apiKey: admin });
      try {
        const sub = ws.subscribe('subscription { spanNew { sessionId } }');
        const wsTag = `ws-${randomUUID()}`;
        // The subscription starts asynchronously: wait for it with markers from B.
        for (let i = 0; i < 50 && !sub.received.some((r) => r.spanNew.sessionId === wsTag); i++) {
          expectStatus(await ingest(b, [wsTag]), 202, 'ws marker');
          await new Promise((r) => setTimeout(r, 100));
        }
        const tag = `x-${randomUUID()}`;
        expectStatus(await ingest(b, [`${tag}-1`]), 202, 'on B');
        expectStatus(await ingest(a, [`${tag}-2`, `${tag}-3`]), 202, 'on A');
        expectStatus(await ingest(b, [`${tag}-4`]), 202, 'on B again');
        await onA.waitFor(() => tagged(onA, tag).length === 4, 5000);
        await onB.waitFor(() => tagged(onB, tag).length === 4, 5000);
        const seenA = tagged(onA, tag).map((e) => [e.id, sessionOf(e)]);
        expect(tagged(onB, tag).map((e) => [e.id, sessionOf(e)])).toEqual(seenA);
        const ids = seenA.map(([id]) => Number(id));
        expect(
          ids.every((id, i) => Number.isInteger(id) && (i === 0 || id > (ids[i - 1] as number))),
        ).toBe(true);
        expect(new Set(seenA.map(([, s]) => s))).toEqual(
          new Set([1, 2, 3, 4].map((n) => `${tag}-${n}`)),
        );
        for (
          let i = 0;
          i < 50 && sub.received.filter((r) => r.spanNew.sessionId.startsWith(tag)).length < 4;
          i++
        )
          await new Promise((r) => setTimeout(r, 50));
        expect(sub.received.filter((r) => r.spanNew.sessionId.startsWith(tag)).length).toBe(4);
      } finally {
        onA.close();
        onB.close();
        await ws.dispose();
      }
    });

    it('a client reconnecting to another instance (or one started later) with its last event id gets exactly what it missed', async () => {
      const first = await SseClient.open(`${a.httpUrl}/api/live/events`, auth);
      const watcher = await SseClient.open(`${b.httpUrl}/api/live/events`, auth);
      const tag = `r-${randomUUID()}`;
      expectStatus(await ingest(a, [`${tag}-seen`]), 202, 'seen');
      await first.waitFor(() => tagged(first, tag).length === 1, 5000);
      const lastId = first.events.at(-1)?.id as string;
      first.close();
      expectStatus(await ingest(a, [`${tag}-m1`, `${tag}-m2`]), 202, 'missed on A');
      expectStatus(await ingest(b, [`${tag}-m3`]), 202, 'missed on B');
      await watcher.waitFor(() => tagged(watcher, tag).length === 4, 5000);
      watcher.close();
      const missed = tagged(watcher, tag)
        .slice(1)
        .map((e) => [e.id, sessionOf(e)]);
      expect(missed.map(([id]) => Number(id))).toEqual([1, 2, 3].map((n) => Number(lastId) + n));

      const again = await SseClient.open(`${b.httpUrl}/api/live/events`, {
        ...auth,
        'last-event-id': lastId,
      });
      await again.waitFor(() => again.events.length >= 3, 5000);
      again.close();
      expect(again.events.map((e) => [e.id, sessionOf(e)])).toEqual(missed);

      // An instance started now reads the stream's recent events into its replay ring.
      const c = await startTestServer(env);
      servers.push(c);
      let replayed: SseEvent[] = [];
      for (let i = 0; i < 50 && replayed.length < 3; i++) {
        const late = await SseClient.open(`${c.httpUrl}/api/live/events`, {
          ...auth,
          'last-event-id': lastId,
        });
        await late.waitFor(() => late.events.length >= 3, 100).catch(() => undefined);
        late.close();
        replayed = late.events;
      }
      expect(replayed.map((e) => [e.id, sessionOf(e)])).toEqual(missed);
    });

    it('appends nothing to the stream while no instance has a live client, and relays as soon as one connects', async () => {
      const quiet = { ...env, SPYGLASS_CLUSTER_NAME: `q-${randomUUID()}` };
      const c = await startTestServer(quiet);
      const d = await startTestServer(quiet);
      servers.push(c, d);
      const { Redis } = await import('ioredis');
      const r = new Redis(redis.url, { maxRetriesPerRequest: 1 });
      try {
        const stream = `${quiet.SPYGLASS_CLUSTER_NAME}:live`;
        await new Promise((res) => setTimeout(res, 1500)); // both have asked whether anyone listens
        expectStatus(await ingest(d, ['nobody-1', 'nobody-2']), 202, 'no listener');
        expect(await r.xlen(stream)).toBe(0);
        const client = await SseClient.open(`${c.httpUrl}/api/live/events`, auth);
        try {
          const tag = `first-${randomUUID()}`;
          await new Promise((res) => setTimeout(res, 100));
          expectStatus(await ingest(d, [tag]), 202, 'after the first client');
          await client.waitFor(() => tagged(client, tag).length === 1, 5000);
          expect(tagged(client, tag)[0]?.id).toMatch(/^\d+$/);
          expect(await r.xlen(stream)).toBeGreaterThan(0);
        } finally {
          client.close();
        }
      } finally {
        r.disconnect();
      }
    });

    it('Redis stopped mid-run: ingest keeps answering 202 and loses nothing, local clients keep receiving, and fan-out and settings catch up once it is back', async () => {
      const onA = await SseClient.open(`${a.httpUrl}/api/live/events`, auth);
      try {
        const tag = `o-${randomUUID()}`;
        expectStatus(await ingest(a, [`${tag}-before`]), 202, 'before');
        await onA.waitFor(() => tagged(onA, tag).length === 1, 5000);
        const idBefore = Number(tagged(onA, tag)[0]?.id);
        await redis.stop();
        // Wait until A has noticed (a reconnect attempt failed): a quick restart could otherwise
        // happen between two attempts, and there would be no outage to speak of.
        for (
          let i = 0;
          i < 100 && !logsA.some((l) => l.msg.startsWith('redis unavailable (live events):'));
          i++
        )
          await new Promise((r) => setTimeout(r, 50));

        let acked = 1;
        for (let i = 0; i < 5; i++) {
          const sessions = [1, 2, 3].map((n) => `${tag}-down-${i}-${n}`);
          expect((await ingest(a, sessions)).status).toBe(202);
          acked += sessions.length;
        }
        // This instance's clients still get its own spans, without ids (they keep their last good one).
        await onA.waitFor(() => tagged(onA, `${tag}-down`).length === 15, 5000);
        expect(tagged(onA, `${tag}-down`).every((e) => e.id === undefined)).toBe(true);
        // A change made on B while the other instance cannot hear about it.
        expectStatus(
          await call(b.httpUrl, 'PUT', '/api/settings', {
            key: admin,
            body: { redact_payloads: true },
          }),
          200,
          'settings during outage',
        );

        redis = await startRedis(redis.port);
        await relayed(b, a);
        expectStatus(await ingest(a, [`${tag}-after`]), 202, 'after');
        await onA.waitFor(() => tagged(onA, `${tag}-after`).length === 1, 5000);
        acked += 1;
        // Ids go on increasing although the restarted Redis forgot the counter.
        expect(Number(tagged(onA, `${tag}-after`)[0]?.id)).toBeGreaterThan(idBefore);
        const [row] =
          await sql`select count(*)::int as n from spans where session_id like ${`${tag}%`}`;
        expect(row?.n).toBe(acked);
        // The outage was logged once as a warning, and its end once. The log comes over A's stdout,
        // which need not have been read yet when its SSE event came over the socket.
        const live = (text: string) => logsA.filter((l) => l.msg.startsWith(text)).length;
        await expect.poll(() => live('redis back (live events)'), { timeout: 5000 }).toBe(1);
        expect(live('redis unavailable (live events):')).toBe(1);
        // A reloaded what it may have missed.
        for (
          let i = 0;
          i < 100 &&
          (await call(a.httpUrl, 'GET', '/api/settings', { key: admin })).json.redact_payloads !==
            true;
          i++
        )
          await new Promise((r) => setTimeout(r, 100));
        expect(
          (await call(a.httpUrl, 'GET', '/api/settings', { key: admin })).json.redact_payloads,
        ).toBe(true);
      } finally {
        onA.close();
      }
    });
  },
);
