/**
 * The live-load row: ingest throughput and liveness p99 of one server, first with no live clients,
 * then with `subscribers` of them connected (SSE, GraphQL over SSE and GraphQL over WebSocket in
 * equal parts) and reading every event. The server runs with rate limits off (it is driven over
 * HTTP harder than any per-client limit allows) and with live.max_clients_per_key raised to the
 * budget, since every bench client is the same local caller. The subscribers run in a child process
 * of their own, so their reading does not slow the load generator or the liveness probe here.
 */
import { fork } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { processCpuMs } from './proc-stats.ts';
import { runCell, type CellResult } from './load.ts';
import { Template } from './payloads.ts';
import { startServerProc, type ServerProc } from './server-proc.ts';

export interface LiveLoadOptions {
  /** postgres:// URL of a fresh database; undefined runs the server on PGlite. */
  databaseUrl?: string | undefined;
  /** Write a V8 CPU profile of the server into this directory. */
  cpuProfDir?: string | undefined;
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
  /** Server process CPU µs per span stored (includes delivering events to the subscribers). */
  serverUsPerSpan: number;
  /** CPU the subscriber process used during the run (it shares the machine with the server). */
  subscribersCpuMs: number;
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
  const server = await startServerProc({ databaseUrl: opts.databaseUrl, cpuProfDir: opts.cpuProfDir, rateLimits: 'off', readyTimeoutMs: 180_000, extraConfig: `live:\n  max_clients_per_key: ${Math.min(200, Math.max(1, opts.subscribers))}\n` });
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
  const delivered0 = (await subs?.events()) ?? 0;
  const cpu0 = { server: processCpuMs(server.pid), subs: subs ? processCpuMs(subs.pid) : 0 };
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
    eventsDelivered: ((await subs?.events()) ?? 0) - delivered0,
    // Server CPU per span: what the subscribers cost the server, whatever else ran on the machine.
    serverUsPerSpan: ((processCpuMs(server.pid) - cpu0.server) * 1000) / Math.max(1, r.spans),
    subscribersCpuMs: subs ? processCpuMs(subs.pid) - cpu0.subs : 0,
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
  pid: number;
  events(): Promise<number>;
  close(): void;
}

/** `n` live clients in a child process (live-subscribers.ts); resolves once all are subscribed. */
async function connect(server: ServerProc, n: number): Promise<Subscribers> {
  const child = fork(fileURLToPath(new URL('./live-subscribers.ts', import.meta.url)), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const reply = <K extends string>(key: K) =>
    new Promise<Record<K, unknown>>((resolve, reject) => {
      const on = (m: Record<string, unknown>) => {
        if (key in m || 'error' in m) {
          child.off('message', on);
          if ('error' in m) reject(new Error(String(m.error)));
          else resolve(m as Record<K, unknown>);
        }
      };
      child.on('message', on);
      child.once('exit', (code) => reject(new Error(`subscribers exited (${code})`)));
    });
  const connected = reply('connected');
  child.send({ connect: { port: server.httpPort, n } });
  const mix = (await connected).connected as LiveLoadResult['mix'];
  return {
    count: n,
    mix,
    pid: child.pid as number,
    events: async () => {
      const r = reply('events');
      child.send({ count: true });
      return Number((await r).events);
    },
    close: () => {
      if (child.connected) child.send({ close: true });
      setTimeout(() => child.kill('SIGKILL'), 2000).unref();
    },
  };
}
