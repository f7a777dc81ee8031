import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { bootstrapKey, configFile } from '../helpers/auth.ts';
import { createPgDatabase } from '../helpers/backends.ts';
import { openWs } from '../helpers/graphql-ws.ts';
import { spawnInstance, type Instance } from '../helpers/instance.ts';
import { findRedisServer, startRedis, type RedisServer } from '../helpers/redis.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The per-key live-client cap and the per-address socket cap hold across every worker and instance
 * sharing one Redis (docs/scaling.md "Caps across workers"), and a killed holder's places come back
 * one lease later. Two in-process instances, a separate `spyglass serve` that is killed, and one
 * with SPYGLASS_WORKERS=2. Raw sockets come from their own loopback addresses (127.0.0.x), so each
 * test has an address of its own whatever else is connected.
 */
const pgAdminUrl = inject('pgAdminUrl');
const KEYS = { shared: bootstrapKey(), crash: bootstrapKey(), workers: bootstrapKey() };
const PER_KEY = 3;
const PER_ADDRESS = 4;

interface Stream {
  admitted: boolean;
  /** The error frame's detail when refused. */
  detail: string | null;
  close(): void;
}

/** GET /api/live/events; resolves once the stream is either open (`: connected`) or refused. */
function sse(url: string, key: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/live/events`,
      { headers: { accept: 'text/event-stream', 'x-api-key': key } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        const close = () => res.destroy();
        res.on('data', (d: string) => {
          body += d;
          if (body.includes(': connected')) resolve({ admitted: true, detail: null, close });
        });
        res.on('end', () => {
          const m = /data: (\{.*\})/.exec(body);
          resolve({
            admitted: false,
            detail: m ? (JSON.parse(m[1] as string) as { detail: string }).detail : body,
            close,
          });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

interface Conn {
  socket: Socket;
  /** 'served' once a liveness request on it answered 200, else what the server sent before closing. */
  outcome: Promise<string>;
}

/** A raw socket from `from` that asks for /api/liveness and keeps the connection open. */
function socketFrom(url: string, from: string): Conn {
  const { port } = new URL(url);
  const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: from });
  socket.setEncoding('utf8');
  socket.on('error', () => undefined);
  let received = '';
  const outcome = new Promise<string>((resolve) => {
    socket.on('data', (d: string) => {
      received += d;
      if (/^HTTP\/1\.1 200 /.test(received)) resolve('served');
    });
    socket.once('close', () => resolve(received));
  });
  socket.once('connect', () =>
    socket.write('GET /api/liveness HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'),
  );
  return { socket, outcome };
}

const served = async (conns: Conn[]) =>
  (await Promise.all(conns.map((c) => c.outcome))).filter((o) => o === 'served').length;

// Each test has keys and client addresses of its own (the last one its own instance and cluster name):
// they run side by side.
describe.runIf(findRedisServer() !== null)(
  'caps across instances sharing Redis',
  { concurrent: true },
  () => {
    let redis: RedisServer;
    let config: ReturnType<typeof configFile>;
    let env: Record<string, string>;
    let a: TestServer;
    let b: TestServer;
    const open: { close(): void }[] = [];

    beforeAll(async () => {
      redis = await startRedis();
      config = configFile(
        `live:\n  max_clients_per_key: ${PER_KEY}\nhttp:\n  max_connections_per_address: ${PER_ADDRESS}\n`,
      );
      env = {
        SPYGLASS_REDIS_URL: redis.url,
        SPYGLASS_CLUSTER_NAME: `caps-${randomUUID()}`,
        SPYGLASS_API_KEYS: Object.values(KEYS).join(','),
        SPYGLASS_RATE_LIMITS: 'off',
        SPYGLASS_CONFIG: config.path,
        // 127.0.0.1 (the SSE clients, readiness probes) is exempt from the address cap as a trusted
        // proxy; the raw sockets come from other loopback addresses, which are ordinary clients.
        SPYGLASS_TRUSTED_PROXY_CIDRS: '127.0.0.1/32',
      };
      // Each on its own embedded database: started side by side.
      [a, b] = await Promise.all([startTestServer(env), startTestServer(env)]);
    }, 120_000);
    afterAll(async () => {
      for (const c of open) c.close();
      await Promise.all([a?.dispose(), b?.dispose()]);
      await redis?.stop();
      config?.remove();
    });

    it('one key holds at most max_clients_per_key live clients across both instances, SSE and GraphQL WebSocket alike', async ({
      expect,
    }) => {
      const onA = [await sse(a.httpUrl, KEYS.shared), await sse(a.httpUrl, KEYS.shared)];
      const onB = await sse(b.httpUrl, KEYS.shared);
      open.push(...onA, onB);
      expect([...onA, onB].map((s) => s.admitted)).toEqual([true, true, true]);

      const overB = await sse(b.httpUrl, KEYS.shared);
      expect(overB).toMatchObject({
        admitted: false,
        detail: `too many live clients for this key (max ${PER_KEY})`,
      });
      const overA = await sse(a.httpUrl, KEYS.shared);
      expect(overA.admitted).toBe(false);
      await expect(openWs(b.httpUrl, { apiKey: KEYS.shared })).rejects.toThrow(
        `closed before connection_ack: 1013 Try again later: too many live clients for this key (max ${PER_KEY})`,
      );

      // A place given back on A can be taken on B.
      onA[0]?.close();
      await expect
        .poll(async () => {
          const s = await sse(b.httpUrl, KEYS.shared);
          open.push(s);
          return s.admitted;
        })
        .toBe(true);
      const ws = openWs(a.httpUrl, { apiKey: KEYS.shared });
      await expect(ws).rejects.toThrow('too many live clients for this key');
    });

    it('one address holds at most max_connections_per_address sockets across both instances', async ({
      expect,
    }) => {
      const from = '127.0.0.2';
      const first = [
        socketFrom(a.httpUrl, from),
        socketFrom(a.httpUrl, from),
        socketFrom(b.httpUrl, from),
        socketFrom(b.httpUrl, from),
      ];
      open.push(...first.map((c) => ({ close: () => c.socket.destroy() })));
      expect(await served(first)).toBe(PER_ADDRESS);
      for (const url of [a.httpUrl, b.httpUrl]) {
        const extra = socketFrom(url, from);
        const answer = await extra.outcome;
        expect(answer).toMatch(/^HTTP\/1\.1 429 /);
        expect(answer).toContain('too many open connections from this address');
      }
      // Another address is not affected.
      const other = socketFrom(b.httpUrl, '127.0.0.5');
      expect(await other.outcome).toBe('served');
      other.socket.destroy();
      first[0]?.socket.destroy();
      await expect
        .poll(async () => {
          const c = socketFrom(b.httpUrl, from);
          open.push({ close: () => c.socket.destroy() });
          return c.outcome;
        })
        .toBe('served');
    });

    it("a killed instance's places come back after its lease", async ({ expect }) => {
      const holder: Instance = await spawnInstance({ ...env, SPYGLASS_LEASE_SECONDS: '1' });
      const from = '127.0.0.3';
      const streams = await Promise.all(
        Array.from({ length: PER_KEY }, () => sse(holder.url, KEYS.crash)),
      );
      const sockets = Array.from({ length: PER_ADDRESS }, () => socketFrom(holder.url, from));
      expect(
        streams.map((s) => s.admitted),
        JSON.stringify(streams.map((s) => s.detail)),
      ).toEqual([true, true, true]);
      expect(await served(sockets)).toBe(sockets.length);

      // While the holder lives, its places count on A.
      expect((await sse(a.httpUrl, KEYS.crash)).admitted).toBe(false);
      const refused = socketFrom(a.httpUrl, from);
      expect(await refused.outcome).toMatch(/^HTTP\/1\.1 429 /);

      // SIGKILL: the holder gives nothing back.
      await holder.kill();
      await expect
        .poll(
          async () => {
            const s = await sse(a.httpUrl, KEYS.crash);
            open.push(s);
            return s.admitted;
          },
          { timeout: 15_000, interval: 200 },
        )
        .toBe(true);
      const more = await Promise.all(
        Array.from({ length: PER_KEY - 1 }, () => sse(a.httpUrl, KEYS.crash)),
      );
      open.push(...more);
      expect(more.map((s) => s.admitted)).toEqual([true, true]);
      expect((await sse(b.httpUrl, KEYS.crash)).admitted).toBe(false);
      const back = [a, a, b, b].map((s) => socketFrom(s.httpUrl, from));
      open.push(...back.map((c) => ({ close: () => c.socket.destroy() })));
      expect(await served(back)).toBe(PER_ADDRESS);
      for (const c of [...streams, ...sockets.map((x) => ({ close: () => x.socket.destroy() }))])
        c.close();
    }, 90_000);

    it.runIf(pgAdminUrl !== null)(
      'with SPYGLASS_WORKERS=2 the caps are those of one process',
      async ({ expect }) => {
        const databaseUrl = await createPgDatabase();
        const inst = await spawnInstance(
          {
            ...env,
            SPYGLASS_DATABASE_URL: databaseUrl,
            SPYGLASS_WORKERS: '2',
            SPYGLASS_CLUSTER_NAME: `caps-${randomUUID()}`,
          },
          90_000,
        );
        try {
          // Node's cluster hands connections to the workers in turn, so each worker saw four of them.
          const streams = await Promise.all(
            Array.from({ length: 8 }, () => sse(inst.url, KEYS.workers)),
          );
          expect(streams.filter((s) => s.admitted)).toHaveLength(PER_KEY);
          for (const s of streams) s.close();
          const conns = Array.from({ length: 10 }, () => socketFrom(inst.url, '127.0.0.4'));
          expect(await served(conns)).toBe(PER_ADDRESS);
          for (const c of conns) c.socket.destroy();
        } finally {
          await inst.stop();
        }
      },
      150_000,
    );
  },
);
