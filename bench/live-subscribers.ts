/**
 * The live-load bench's subscribers, in a process of their own (started by live-load.ts with an
 * IPC channel): reading hundreds of thousands of events must not slow the load generator or the
 * liveness probe, which run in the bench process. Messages: in `{connect: {port, n}}`, `{count}`,
 * `{close}`; out `{connected: mix}`, `{events}`, `{error}`.
 */
import { request } from 'node:http';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

const QUERY = 'subscription { spanNew { spanId toolName status latencyMs } }';
let events = 0;
const closers: (() => void)[] = [];

function sse(port: number, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, headers: { accept: 'text/event-stream' } },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`${path}: ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          for (let i = chunk.indexOf('\ndata:'); i >= 0; i = chunk.indexOf('\ndata:', i + 1))
            events++;
        });
        closers.push(() => res.destroy());
        resolve();
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function ws(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const client: Client = createClient({
      url: `ws://127.0.0.1:${port}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: reject,
    });
    client.on('connected', () => resolve());
    client.subscribe(
      { query: QUERY },
      { next: () => void events++, error: () => undefined, complete: () => undefined },
    );
    closers.push(() => void client.dispose());
  });
}

/** `n` live clients in equal thirds: SSE, GraphQL over SSE, GraphQL over WebSocket. */
async function connect(port: number, n: number) {
  const mix = {
    sse: Math.ceil(n / 3),
    graphqlSse: Math.ceil((n - Math.ceil(n / 3)) / 2),
    graphqlWs: 0,
  };
  mix.graphqlWs = n - mix.sse - mix.graphqlSse;
  for (let i = 0; i < mix.sse; i++) await sse(port, '/api/live/events');
  for (let i = 0; i < mix.graphqlSse; i++)
    await sse(port, `/graphql?query=${encodeURIComponent(QUERY)}`);
  for (let i = 0; i < mix.graphqlWs; i++) await ws(port);
  return mix;
}

const send = (m: unknown) => process.send?.(m);
process.on(
  'message',
  (m: { connect?: { port: number; n: number }; count?: true; close?: true }) => {
    if (m.connect)
      connect(m.connect.port, m.connect.n).then(
        (mix) => send({ connected: mix }),
        (err: Error) => send({ error: err.message }),
      );
    if (m.count) send({ events });
    if (m.close) {
      for (const c of closers) c();
      process.exit(0);
    }
  },
);
process.on('disconnect', () => process.exit(0));
