/**
 * The live-load row: ingest throughput and liveness p99 of one server, first with no live clients,
 * then with `subscribers` of them connected (SSE, GraphQL over SSE and GraphQL over WebSocket in
 * equal parts) and reading every event. The server runs with rate limits off (it is driven over
 * HTTP harder than any per-client limit allows) and with live.max_clients_per_key raised to the
 * budget, since every bench client is the same local caller.
 */
import { request } from 'node:http';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { runCell, type CellResult } from './load.ts';
import { Template } from './payloads.ts';
import { startServerProc, type ServerProc } from './server-proc.ts';

export interface LiveLoadOptions {
  /** postgres:// URL of a fresh database; undefined runs the server on PGlite. */
  databaseUrl?: string | undefined;
  subscribers: number;
  batch: number;
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** Gap between liveness probes, ms. */
  probeEveryMs: number;
  nextSeq: (n: number) => number;
  t0: number;
}

export interface LiveRun {
  subscribers: number;
  spansPerSec: number;
  p99Ms: number;
  errors: number;
  livenessP99Ms: number;
  livenessProbes: number;
  /** Events the subscribers received during the run, all of them together. */
  eventsDelivered: number;
}

export interface LiveLoadResult {
  without: LiveRun;
  with: LiveRun;
  mix: { sse: number; graphqlSse: number; graphqlWs: number };
  throughputRatio: number;
  rateLimits: 'off';
  backend: 'pglite' | 'postgres';
}

export async function runLiveLoad(opts: LiveLoadOptions, progress: (msg: string) => void): Promise<LiveLoadResult> {
  const server = await startServerProc({ databaseUrl: opts.databaseUrl, rateLimits: 'off', readyTimeoutMs: 180_000, extraConfig: `live:\n  max_clients_per_key: ${Math.min(200, Math.max(1, opts.subscribers))}\n` });
  try {
    const template = Template.build('native', opts.batch);
    progress(`live load: ${opts.batch}-span native batches, concurrency ${opts.concurrency}, rate limits off`);
    const without = await measure(server, template, opts, null);
    progress(`live load without subscribers: ${Math.round(without.spansPerSec)} spans/s, liveness p99 ${without.livenessP99Ms.toFixed(1)} ms`);
    const subs = await connect(server, opts.subscribers);
    try {
      const withSubs = await measure(server, template, opts, subs);
      progress(`live load with ${opts.subscribers} subscribers: ${Math.round(withSubs.spansPerSec)} spans/s, liveness p99 ${withSubs.livenessP99Ms.toFixed(1)} ms, ${withSubs.eventsDelivered} events delivered`);
      return { without, with: withSubs, mix: subs.mix, throughputRatio: withSubs.spansPerSec / without.spansPerSec, rateLimits: 'off', backend: opts.databaseUrl ? 'postgres' : 'pglite' };
    } finally {
      subs.close();
    }
  } finally {
    await server.stop();
    server.dispose();
  }
}

async function measure(server: ServerProc, template: Template, opts: LiveLoadOptions, subs: Subscribers | null): Promise<LiveRun> {
  const delivered0 = subs?.events() ?? 0;
  const probe = startLivenessProbe(server.httpPort, opts.probeEveryMs);
  let r: CellResult;
  try {
    r = await runCell({ httpPort: server.httpPort, grpcPort: server.grpcPort }, template, {
      concurrency: opts.concurrency, warmupMs: opts.warmupMs, durationMs: opts.durationMs, maxSpans: 5_000_000,
      requestTimeoutMs: 30_000, nextSeq: opts.nextSeq, t0: opts.t0,
    });
  } finally {
    probe.stop();
  }
  const lat = probe.latencies.sort((a, b) => a - b);
  return {
    subscribers: subs?.count ?? 0,
    spansPerSec: r.spansPerSec,
    p99Ms: r.p99Ms,
    errors: r.errors,
    livenessP99Ms: lat.length ? (lat[Math.min(lat.length - 1, Math.floor(0.99 * lat.length))] as number) : Number.NaN,
    livenessProbes: lat.length,
    eventsDelivered: (subs?.events() ?? 0) - delivered0,
  };
}

/** GET /api/liveness on its own connection, one at a time, every `everyMs`. */
function startLivenessProbe(port: number, everyMs: number): { latencies: number[]; stop(): void } {
  const latencies: number[] = [];
  let stopped = false;
  const once = () =>
    new Promise<void>((resolve) => {
      const t = performance.now();
      const req = request({ host: '127.0.0.1', port, path: '/api/liveness', timeout: 10_000 }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - t);
          resolve();
        });
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve());
      req.end();
    });
  void (async () => {
    while (!stopped) {
      await once();
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return { latencies, stop: () => void (stopped = true) };
}

interface Subscribers {
  count: number;
  mix: LiveLoadResult['mix'];
  events(): number;
  close(): void;
}

/** `n` live clients in equal thirds, each reading everything; resolves once all are subscribed. */
async function connect(server: ServerProc, n: number): Promise<Subscribers> {
  let events = 0;
  const closers: (() => void)[] = [];
  const mix = { sse: Math.ceil(n / 3), graphqlSse: Math.ceil((n - Math.ceil(n / 3)) / 2), graphqlWs: 0 };
  mix.graphqlWs = n - mix.sse - mix.graphqlSse;
  const sse = (path: string) =>
    new Promise<void>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: server.httpPort, path, headers: { accept: 'text/event-stream' } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`${path}: ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          for (let i = chunk.indexOf('\ndata:'); i >= 0; i = chunk.indexOf('\ndata:', i + 1)) events++;
        });
        closers.push(() => res.destroy());
        resolve();
      });
      req.on('error', reject);
      req.end();
    });
  const ws = () =>
    new Promise<void>((resolve, reject) => {
      const client: Client = createClient({ url: `ws://127.0.0.1:${server.httpPort}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false, onNonLazyError: reject });
      client.on('connected', () => resolve());
      client.subscribe({ query: 'subscription { spanNew { spanId toolName status latencyMs } }' }, { next: () => void events++, error: () => undefined, complete: () => undefined });
      closers.push(() => void client.dispose());
    });
  const gqlQuery = encodeURIComponent('subscription { spanNew { spanId toolName status latencyMs } }');
  for (let i = 0; i < mix.sse; i++) await sse('/api/live/events');
  for (let i = 0; i < mix.graphqlSse; i++) await sse(`/graphql?query=${gqlQuery}`);
  for (let i = 0; i < mix.graphqlWs; i++) await ws();
  return { count: n, mix, events: () => events, close: () => closers.forEach((c) => c()) };
}
