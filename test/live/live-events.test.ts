import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { nativeSpan, postJson } from '../helpers/spans.ts';
import { SseClient } from '../helpers/sse.ts';
import { sendOtlpMultiAgent } from '../helpers/multi-agent.ts';
import { spanNew } from './span-new.ts';

const ADMIN = `sg_${'b'.repeat(64)}`;
let server: TestServer;
let keyA: string;
const auth = { 'x-api-key': ADMIN };

beforeAll(async () => {
  const dir = await import('node:fs').then((fs) => fs.mkdtempSync('/tmp/sg-live-'));
  const cfg = `${dir}/spyglass.yaml`;
  (await import('node:fs')).writeFileSync(
    cfg,
    'live:\n  keepalive_seconds: 1\n  max_clients_per_key: 200\n',
  );
  server = await startTestServer({
    SPYGLASS_API_KEYS: ADMIN,
    SPYGLASS_RATE_LIMITS: 'off',
    SPYGLASS_CONFIG: cfg,
    SPYGLASS_METRICS_TOKEN: 'metrics-secret',
  });
  await postJson(`${server.httpUrl}/api/projects`, { id: 'proj-a', name: 'A' }, auth);
  keyA = (
    await postJson(
      `${server.httpUrl}/api/auth/api-keys`,
      { name: 'a', role: 'admin', project_id: 'proj-a' },
      auth,
    )
  ).json.key;
});
afterAll(async () => server?.dispose());

describe('live events over SSE', () => {
  it('delivers span:new from the native and OTLP receivers, with keepalives', async () => {
    const sse = await SseClient.open(`${server.httpUrl}/api/live/events`, auth);
    try {
      // How fast delivery is belongs to the benchmarks; the test asserts that it happens.
      await postJson(
        `${server.httpUrl}/api/traces/spans`,
        [nativeSpan({ session_id: 'live-1', tool_name: 'live_tool' })],
        auth,
      );
      await sse.waitFor(() => sse.events.some((e) => e.data.includes('live_tool')), 10_000);
      const ev = sse.events.find((e) => e.data.includes('live_tool'));
      expect(ev?.event).toBe('span:new');
      expect(JSON.parse(ev?.data ?? '{}')).toMatchObject({
        session_id: 'live-1',
        agent_name: 'planner',
        server_name: 'filesystem',
        tool_name: 'live_tool',
        status: 'success',
        latency_ms: 42.5,
        project_id: 'default',
      });
      await sendOtlpMultiAgent(`${server.httpUrl}/v1/traces`, 'live-otlp', Date.now(), auth);
      await sse.waitFor(
        () => sse.events.filter((e) => e.data.includes('live-otlp')).length === 6,
        10_000,
      );
      await sse.waitFor(() => sse.comments.includes('keepalive'), 10_000);
    } finally {
      sse.close();
    }
  });

  it('shows a project-bound client only its project', async () => {
    const sse = await SseClient.open(`${server.httpUrl}/api/live/events`, { 'x-api-key': keyA });
    try {
      await postJson(
        `${server.httpUrl}/api/traces/spans`,
        [nativeSpan({ session_id: 'other-project' })],
        auth,
      );
      await postJson(`${server.httpUrl}/api/traces/spans`, [nativeSpan({ session_id: 'mine' })], {
        'x-api-key': keyA,
      });
      await sse.waitFor(() => sse.events.some((e) => e.data.includes('"mine"')));
      expect(sse.events.some((e) => e.data.includes('other-project'))).toBe(false);
    } finally {
      sse.close();
    }
  });

  it('replays what was missed after a reconnect with Last-Event-ID', async () => {
    const first = await SseClient.open(`${server.httpUrl}/api/live/events`, auth);
    await postJson(
      `${server.httpUrl}/api/traces/spans`,
      [nativeSpan({ session_id: 'replay-1' })],
      auth,
    );
    await first.waitFor(() => first.events.some((e) => e.data.includes('replay-1')));
    const lastId = first.events.at(-1)?.id as string;
    first.close();
    await postJson(
      `${server.httpUrl}/api/traces/spans`,
      [nativeSpan({ session_id: 'replay-2' }), nativeSpan({ session_id: 'replay-3' })],
      auth,
    );
    const again = await SseClient.open(`${server.httpUrl}/api/live/events`, {
      ...auth,
      'last-event-id': lastId,
    });
    try {
      await again.waitFor(() => again.events.length >= 2);
      expect(again.events.map((e) => JSON.parse(e.data).session_id)).toEqual([
        'replay-2',
        'replay-3',
      ]);
      expect(Number(again.events[0]?.id)).toBe(Number(lastId) + 1);
    } finally {
      again.close();
    }
  });

  it('refuses the 201st client with an error event and keeps the 200', async () => {
    const clients: SseClient[] = [];
    try {
      for (let i = 0; i < 200; i++)
        clients.push(await SseClient.open(`${server.httpUrl}/api/live/events`, auth));
      const extra = await SseClient.open(`${server.httpUrl}/api/live/events`, auth);
      await extra.waitFor(() => extra.ended);
      expect(extra.events).toEqual([
        { event: 'error', data: JSON.stringify({ detail: 'too many live clients (max 200)' }) },
      ]);
      const metrics = await (
        await fetch(`${server.httpUrl}/metrics`, {
          headers: { authorization: 'Bearer metrics-secret' },
        })
      ).text();
      expect(metrics).toMatch(/^spyglass_active_sse_connections 200$/m);
      expect(clients.every((c) => !c.ended)).toBe(true);
    } finally {
      for (const c of clients) c.close();
      const deadline = Date.now() + 5000;
      while (server.services.live.clientCount > 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
    }
  });

  it('lets a stalled client lose only its oldest events while memory stays flat', async () => {
    const slow = await SseClient.open(`${server.httpUrl}/api/live/events`, auth);
    try {
      slow.res.pause();
      const publish = (i: number) =>
        server.services.bus.publish(
          spanNew({
            sessionId: `flood-${i}`,
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
      // In bursts, as ingest publishes, with the event loop turning between them.
      const burst = async (from: number, to: number) => {
        for (let i = from; i < to; i++) {
          publish(i);
          if (i % 500 === 499) await new Promise((r) => setImmediate(r));
        }
      };
      await burst(0, 5000);
      global.gc?.();
      const before = process.memoryUsage().heapUsed;
      await burst(5000, 30_000);
      global.gc?.();
      const growth = process.memoryUsage().heapUsed - before;
      expect(growth).toBeLessThan(32 * 1024 * 1024);
      slow.res.resume();
      await slow.waitFor(() => slow.events.some((e) => e.data.includes('"flood-29999"')), 10_000);
      const ids = slow.events
        .filter((e) => e.data.includes('flood-'))
        .map((e) => Number(JSON.parse(e.data).span_id));
      expect(ids.length).toBeLessThan(30_000);
      // Strictly increasing, ending at the newest: what is missing are runs of older events (the
      // client lagged while its socket was full, and while live delivery's share of the event
      // loop was spent on the flood), never a newer one.
      expect(ids.every((id, i) => i === 0 || id > (ids[i - 1] as number))).toBe(true);
      expect(ids.slice(-50)).toEqual(Array.from({ length: 50 }, (_, i) => 29_950 + i));
    } finally {
      slow.close();
    }
  });
});

describe('live events over GraphQL subscriptions', () => {
  it('delivers spanNew over SSE (graphql-sse distinct connections)', async () => {
    const query = encodeURIComponent(
      'subscription { spanNew { sessionId toolName status projectId } }',
    );
    const sse = await SseClient.open(`${server.httpUrl}/graphql?query=${query}`, auth);
    try {
      await new Promise((r) => setTimeout(r, 100));
      await postJson(
        `${server.httpUrl}/api/traces/spans`,
        [nativeSpan({ session_id: 'gql-live', tool_name: 'gql_tool' })],
        auth,
      );
      // The deadline bounds a hang, not the delivery's speed.
      await sse.waitFor(() => sse.events.some((e) => e.data.includes('gql_tool')), 10_000);
      const ev = sse.events.find((e) => e.data.includes('gql_tool'));
      expect(JSON.parse(ev?.data ?? '{}')).toEqual({
        data: {
          spanNew: {
            sessionId: 'gql-live',
            toolName: 'gql_tool',
            status: 'success',
            projectId: 'default',
          },
        },
      });
    } finally {
      sse.close();
    }
  });

  it('spanNew(sessionId) delivers only that session’s spans', async () => {
    const query = encodeURIComponent(
      'subscription { spanNew(sessionId: "gql-only-this") { sessionId toolName } }',
    );
    const sse = await SseClient.open(`${server.httpUrl}/graphql?query=${query}`, auth);
    try {
      await new Promise((r) => setTimeout(r, 100));
      // Published in order: had the filter let the other session through, it would come first.
      await postJson(
        `${server.httpUrl}/api/traces/spans`,
        [nativeSpan({ session_id: 'gql-other', tool_name: 'other_tool' })],
        auth,
      );
      await postJson(
        `${server.httpUrl}/api/traces/spans`,
        [nativeSpan({ session_id: 'gql-only-this', tool_name: 'this_tool' })],
        auth,
      );
      await sse.waitFor(() => sse.events.some((e) => e.data.includes('this_tool')), 2000);
      expect(sse.events.filter((e) => e.data.includes('other_tool'))).toEqual([]);
    } finally {
      sse.close();
    }
  });

  it('delivers spanNew over WebSocket, and refuses a socket without a key', async () => {
    const url = server.httpUrl.replace('http', 'ws') + '/graphql';
    const client = createClient({
      url,
      webSocketImpl: WebSocket,
      connectionParams: { apiKey: keyA },
      retryAttempts: 0,
      lazy: false,
    });
    const received: any[] = [];
    let ready!: () => void;
    const connected = new Promise<void>((r) => (ready = r));
    client.on('connected', () => ready());
    const done = new Promise<void>((resolve, reject) => {
      client.subscribe(
        { query: 'subscription { spanNew { sessionId projectId } }' },
        {
          next: (v) => {
            received.push(v.data);
            if (received.length === 1) resolve();
          },
          error: reject,
          complete: () => undefined,
        },
      );
    });
    try {
      await connected;
      await new Promise((r) => setTimeout(r, 100));
      await postJson(
        `${server.httpUrl}/api/traces/spans`,
        [nativeSpan({ session_id: 'ws-other' })],
        auth,
      );
      await postJson(
        `${server.httpUrl}/api/traces/spans`,
        [nativeSpan({ session_id: 'ws-mine' })],
        { 'x-api-key': keyA },
      );
      await done;
      expect(received).toEqual([{ spanNew: { sessionId: 'ws-mine', projectId: 'proj-a' } }]);
    } finally {
      await client.dispose();
    }

    const anonymous = createClient({
      url,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: false,
    });
    const closed = new Promise<number>((r) =>
      anonymous.on('closed', (e) => r((e as { code: number }).code)),
    );
    expect(await closed).toBe(4403);
    await anonymous.dispose();
  });
});

describe('metrics', () => {
  it('needs the bearer token and normalises path labels', async () => {
    expect((await fetch(`${server.httpUrl}/metrics`)).status).toBe(401);
    expect(
      (await fetch(`${server.httpUrl}/metrics`, { headers: { authorization: 'Bearer nope' } }))
        .status,
    ).toBe(401);
    await fetch(`${server.httpUrl}/api/agents/sessions/0b6c7f4e-6a3e-4b51-9c39-1c2d3e4f5a6b`, {
      headers: auth,
    });
    await fetch(`${server.httpUrl}/api/liveness`);
    const text = await (
      await fetch(`${server.httpUrl}/metrics`, {
        headers: { authorization: 'Bearer metrics-secret' },
      })
    ).text();
    expect(text).toMatch(
      /spyglass_http_requests_total\{method="GET",path="\/api\/agents\/sessions\/\{id\}",status="404"\} 1/,
    );
    expect(text).toMatch(/spyglass_spans_ingested_total \d+/);
    expect(text).toContain('spyglass_http_request_duration_seconds_bucket{le="0.01"');
    expect(text).not.toContain('path="/api/liveness"');
    expect(text).not.toContain('path="/metrics"');
  });
});
