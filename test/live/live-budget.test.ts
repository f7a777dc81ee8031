import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { EventBus, type LiveEvent } from '../../src/live/bus.ts';
import { bootstrapKey, configFile, createKey } from '../helpers/auth.ts';
import { openWs, type WsSession } from '../helpers/graphql-ws.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { nativeSpan, postJson } from '../helpers/spans.ts';
import { SseClient } from '../helpers/sse.ts';
import { spanNew } from './span-new.ts';

const ADMIN = bootstrapKey();
const auth = { 'x-api-key': ADMIN };
const SPAN_NEW = encodeURIComponent('subscription { spanNew { sessionId } }');
let server: TestServer;
let config: ReturnType<typeof configFile>;

beforeAll(async () => {
  config = configFile('rate_limits:\n  default: 100000\n');
  server = await startTestServer({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_CONFIG: config.path });
});
afterAll(async () => {
  await server?.dispose();
  config?.remove();
});

/** Waits (bounded) until the server holds `n` live clients. */
async function liveClients(n: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (server.services.liveClients.count !== n) {
    if (Date.now() > deadline)
      throw new Error(`expected ${n} live clients, have ${server.services.liveClients.count}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function upgradeStatus(
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(
      `${server.httpUrl.replace('http', 'ws')}/graphql`,
      'graphql-transport-ws',
      { headers },
    );
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body,
          ...(res.headers['retry-after'] ? { retryAfter: String(res.headers['retry-after']) } : {}),
        }),
      );
    });
    ws.on('open', () => {
      ws.terminate();
      resolve({ status: 101, body: '' });
    });
    ws.on('error', (err) =>
      err.message.startsWith('Unexpected server response') ? undefined : reject(err),
    );
  });
}

describe('one budget for every kind of live client', () => {
  it('counts SSE, GraphQL over SSE and GraphQL over WebSocket against the same 200, and caps each key', async () => {
    const viewers = await Promise.all(
      [1, 2, 3, 4].map((i) => createKey(server.httpUrl, ADMIN, { name: `v${i}`, role: 'viewer' })),
    );
    const sse: SseClient[] = [];
    let ws: WsSession | null = null;
    try {
      for (const v of viewers.slice(0, 3))
        for (let i = 0; i < 50; i++)
          sse.push(
            await SseClient.open(`${server.httpUrl}/api/live/events`, { 'x-api-key': v.key }),
          );
      const overKey = await SseClient.open(`${server.httpUrl}/api/live/events`, {
        'x-api-key': viewers[0]?.key as string,
      });
      await overKey.waitFor(() => overKey.ended);
      expect(overKey.events).toEqual([
        {
          event: 'error',
          data: JSON.stringify({ detail: 'too many live clients for this key (max 50)' }),
        },
      ]);

      for (let i = 0; i < 49; i++)
        sse.push(
          await SseClient.open(`${server.httpUrl}/graphql?query=${SPAN_NEW}`, {
            'x-api-key': viewers[3]?.key as string,
          }),
        );
      await liveClients(199);
      ws = await openWs(server.httpUrl, { apiKey: ADMIN });
      await liveClients(200);

      const sse201 = await SseClient.open(`${server.httpUrl}/api/live/events`, auth);
      await sse201.waitFor(() => sse201.ended);
      expect(sse201.events).toEqual([
        { event: 'error', data: JSON.stringify({ detail: 'too many live clients (max 200)' }) },
      ]);

      const gql201 = await SseClient.open(`${server.httpUrl}/graphql?query=${SPAN_NEW}`, auth);
      await gql201.waitFor(() => gql201.events.length > 0);
      expect(JSON.parse(gql201.events[0]?.data ?? '{}').errors[0]).toMatchObject({
        message: 'too many live clients (max 200)',
        extensions: { code: 'RATE_LIMITED' },
      });
      gql201.close();

      expect(await upgradeStatus(auth)).toMatchObject({
        status: 503,
        body: JSON.stringify({ detail: 'too many live clients (max 200)' }),
        retryAfter: '5',
      });
      // Everyone admitted still gets events.
      await postJson(
        `${server.httpUrl}/api/traces/spans`,
        [nativeSpan({ session_id: 'budget-1' })],
        auth,
      );
      await Promise.all(
        sse.map((c) => c.waitFor(() => c.events.some((e) => e.data.includes('budget-1')), 10_000)),
      );
    } finally {
      for (const c of sse) c.close();
      await ws?.dispose();
    }
    await liveClients(0);
  });

  it('allows 20 subscriptions on one WebSocket and refuses the 21st', async () => {
    const ws = await openWs(server.httpUrl, { apiKey: ADMIN });
    try {
      const subs = Array.from({ length: 20 }, () =>
        ws.subscribe('subscription { spanNew { sessionId } }'),
      );
      // Each is live once it has seen an event; keep publishing until all have.
      await postJson(
        `${server.httpUrl}/api/traces/spans`,
        [nativeSpan({ session_id: 'cap-1' })],
        auth,
      );
      const deadline = Date.now() + 10_000;
      while (!subs.every((s) => s.received.length > 0) && Date.now() < deadline) {
        await Promise.race([
          Promise.all(subs.map((s) => s.count(1))),
          new Promise((r) => setTimeout(r, 100)),
        ]);
        if (!subs.every((s) => s.received.length > 0))
          await postJson(
            `${server.httpUrl}/api/traces/spans`,
            [nativeSpan({ session_id: 'cap-1' })],
            auth,
          );
      }
      expect(subs.every((s) => s.received[0]?.spanNew.sessionId === 'cap-1')).toBe(true);
      const extra = ws.subscribe('subscription { spanNew { sessionId } }');
      await extra.ended;
      expect(extra.errors[0]).toMatchObject({
        message: 'at most 20 subscriptions per connection',
        extensions: { code: 'RATE_LIMITED' },
      });
    } finally {
      await ws.dispose();
    }
  });

  it('holds only the newest 50 events for a GraphQL WebSocket client that stopped reading', async () => {
    const ws = await openWs(server.httpUrl, { apiKey: ADMIN });
    try {
      const sub = ws.subscribe('subscription { spanNew { spanId toolName } }');
      const publish = (i: number) =>
        server.services.bus.publish(
          spanNew({
            sessionId: `ws-flood-${i}`,
            agentName: 'a',
            serverName: 's',
            toolName: 'x'.repeat(2000),
            status: 'success',
            latencyMs: 1,
            projectId: 'default',
            spanId: String(i),
            traceId: null,
            spanType: 'tool_call',
          }),
        );
      // Subscribing is asynchronous: publish until the subscription has seen an event.
      while (sub.received.length === 0) {
        publish(-1);
        await Promise.race([sub.count(1), new Promise((r) => setTimeout(r, 50))]);
      }
      ws.socket.pause();
      const burst = async (from: number, to: number) => {
        for (let i = from; i < to; i++) {
          publish(i);
          if (i % 200 === 199) await new Promise((r) => setImmediate(r));
        }
      };
      await burst(0, 5000);
      global.gc?.();
      const before = process.memoryUsage().heapUsed;
      await burst(5000, 20_000);
      global.gc?.();
      expect(process.memoryUsage().heapUsed - before).toBeLessThan(32 * 1024 * 1024);
      ws.socket.resume();
      const last = () => sub.received.at(-1)?.spanNew.spanId === '19999';
      while (!last()) await sub.count(sub.received.length + 1);
      const ids = sub.received.map((r) => Number(r.spanNew.spanId)).filter((id) => id >= 0);
      expect(ids.length).toBeLessThan(20_000);
      expect(ids.slice(-50)).toEqual(Array.from({ length: 50 }, (_, i) => 19_950 + i));
    } finally {
      await ws.dispose();
    }
  });
});

describe('WebSocket upgrades', () => {
  it('are authenticated before a socket exists, and a refused key closes with a reason', async () => {
    const bad = await upgradeStatus({ 'x-api-key': `sg_${'0'.repeat(64)}` });
    expect(bad).toMatchObject({
      status: 401,
      body: JSON.stringify({ detail: 'invalid, expired or revoked API key' }),
    });
    await expect(openWs(server.httpUrl, { apiKey: 'sg_nope' })).rejects.toThrow(
      'closed before connection_ack: 4403 Forbidden: invalid, expired or revoked API key',
    );
  });

  it('are rate limited per address', async () => {
    const cfg = configFile('rate_limits:\n  default: 3\n');
    const limited = await startTestServer({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_CONFIG: cfg.path });
    try {
      const url = `${limited.httpUrl.replace('http', 'ws')}/graphql`;
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        statuses.push(
          await new Promise<number>((resolve) => {
            const ws = new WebSocket(url, 'graphql-transport-ws', { headers: auth });
            ws.on('open', () => {
              ws.terminate();
              resolve(101);
            });
            ws.on('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0));
            ws.on('error', () => undefined);
          }),
        );
      }
      expect(statuses).toEqual([101, 101, 101, 429]);
    } finally {
      await limited.dispose();
      cfg.remove();
    }
  }, 240_000);
});

describe('publishing', () => {
  it('gives a client that keeps up every span of a large batch, whatever its kind', async () => {
    const sse = await SseClient.open(`${server.httpUrl}/api/live/events`, auth);
    const gqlSse = await SseClient.open(`${server.httpUrl}/graphql?query=${SPAN_NEW}`, auth);
    const ws = await openWs(server.httpUrl, { apiKey: ADMIN });
    try {
      const sub = ws.subscribe('subscription { spanNew { sessionId } }');
      await liveClients(3);
      while (sub.received.length === 0) {
        await postJson(
          `${server.httpUrl}/api/traces/spans`,
          [nativeSpan({ session_id: 'warm-up' })],
          auth,
        );
        await Promise.race([sub.count(1), new Promise((r) => setTimeout(r, 50))]);
      }
      // Every consumer has caught up (nothing queued) before the batch: none of them lags.
      await postJson(
        `${server.httpUrl}/api/traces/spans`,
        [nativeSpan({ session_id: 'caught-up' })],
        auth,
      );
      await sse.waitFor(() => sse.events.some((e) => e.data.includes('caught-up')), 10_000);
      await gqlSse.waitFor(() => gqlSse.events.some((e) => e.data.includes('caught-up')), 10_000);
      while (!sub.received.some((r) => r.spanNew.sessionId === 'caught-up'))
        await sub.count(sub.received.length + 1);
      const batch = Array.from({ length: 300 }, () => nativeSpan({ session_id: 'big-batch' }));
      expect((await postJson(`${server.httpUrl}/api/traces/spans`, batch, auth)).status).toBe(202);
      const big = (events: { data: string }[]) =>
        events.filter((e) => e.data.includes('big-batch')).length;
      await sse.waitFor(() => big(sse.events) === 300, 10_000);
      await gqlSse.waitFor(() => big(gqlSse.events) === 300, 10_000);
      while (sub.received.filter((r) => r.spanNew.sessionId === 'big-batch').length < 300)
        await sub.count(sub.received.length + 1);
    } finally {
      sse.close();
      gqlSse.close();
      await ws.dispose();
    }
  });

  it('hands a batch to each interested subscriber once, filtered by project, whatever its size', () => {
    const bus = new EventBus();
    let otherProject = 0;
    for (let i = 0; i < 1000; i++)
      bus.subscribeBatches({ type: 'span:new', projectId: 'b' }, () => otherProject++);
    const sizes: number[] = [];
    for (let i = 0; i < 10; i++)
      bus.subscribeBatches({ type: 'span:new', projectId: 'a' }, (items) =>
        sizes.push(items.length),
      );
    const health: LiveEvent[] = [];
    bus.subscribeBatches({ type: 'health:check', projectId: 'a' }, (items) =>
      health.push(...items.map((i) => i.event)),
    );
    const batch = Array.from({ length: 100 }, (_, i) =>
      spanNew({
        sessionId: null,
        agentName: null,
        serverName: 's',
        toolName: 't',
        status: 'success',
        latencyMs: 1,
        projectId: 'a',
        spanId: String(i),
        traceId: null,
        spanType: 'tool_call',
        startedAt: new Date('2026-01-01T00:00:00.000Z'),
      }),
    );
    bus.publishBatch(batch);
    expect(otherProject).toBe(0);
    expect(sizes).toEqual(Array.from({ length: 10 }, () => 100));
    expect(health).toEqual([]);
    bus.publish({
      type: 'health:check',
      data: { serverName: 's', status: 'up', latencyMs: 1 },
    });
    expect(health).toHaveLength(1);
  });
});
