/**
 * The live-load row: ingest throughput and liveness p99 of one server, first with no live clients,
 * then with `subscribers` of them connected (SSE, GraphQL over SSE and GraphQL over WebSocket in
 * equal parts) and reading every event. The server runs with rate limits off (it is driven over
 * HTTP harder than any per-client limit allows) and with live.max_clients_per_key raised to the
 * budget, since every bench client is the same local caller. The subscribers run in a child process
 * of their own, so their reading does not slow the load generator or the liveness probe here.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { machineBusyMs, processCpuMs, treeCpuMs } from './proc-stats.ts';
import { runCell, type CellResult } from './load.ts';
import { Template } from './payloads.ts';
import { startServerProc, type ServerProc } from './server-proc.ts';

export interface LiveLoadOptions {
  /** postgres:// URL of a fresh database; undefined runs the server on PGlite. */
  databaseUrl?: string | undefined;
  /** Write a V8 CPU profile of the server into this directory. */
  cpuProfDir?: string | undefined;
  /** Node flags for the server process (`--server-node-flags`). */
  nodeFlags?: string[] | undefined;
  /** The PostgreSQL postmaster, whose CPU the row reports beside the server's (null: PGlite). */
  pgPid: number | null;
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
  /**
   * Where the machine's cores went during the run, in cores (1 = one core busy the whole run):
   * the server, PostgreSQL, the subscriber process, and the whole machine (load generator and
   * probe included). On a machine whose cores are all busy, what the subscribers take is what
   * PostgreSQL and the server no longer get.
   */
  cores: { server: number; postgres: number; subscribers: number; machine: number };
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
  const server = await startServerProc({ databaseUrl: opts.databaseUrl, cpuProfDir: opts.cpuProfDir, nodeFlags: opts.nodeFlags, rateLimits: 'off', readyTimeoutMs: 180_000, extraConfig: `live:\n  max_clients_per_key: ${Math.min(200, Math.max(1, opts.subscribers))}\n` });
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
  const cpu0 = { server: processCpuMs(server.pid), subs: subs ? processCpuMs(subs.pid) : 0, pg: opts.pgPid === null ? 0 : treeCpuMs(opts.pgPid), machine: machineBusyMs(), at: performance.now() };
  const probe = await startLivenessProbe(server.httpPort, opts.probeEveryMs);
  let r: CellResult;
  let latencies: number[] = [];
  try {
    r = await runCell({ httpPort: server.httpPort, grpcPort: server.grpcPort }, template, {
      concurrency: opts.concurrency, warmupMs: opts.warmupMs, durationMs: opts.durationMs, maxSpans: 5_000_000,
      requestTimeoutMs: 30_000, nextSeq: opts.nextSeq, t0: opts.t0,
    });
  } finally {
    latencies = await probe.stop();
  }
  const lat = latencies.sort((a, b) => a - b);
  const wallMs = performance.now() - cpu0.at;
  const serverMs = processCpuMs(server.pid) - cpu0.server;
  const subscribersCpuMs = subs ? processCpuMs(subs.pid) - cpu0.subs : 0;
  return {
    subscribers: subs?.count ?? 0,
    spansPerSec: r.spansPerSec,
    p99Ms: r.p99Ms,
    errors: r.errors,
    livenessP99Ms: lat.length ? (lat[Math.min(lat.length - 1, Math.floor(0.99 * lat.length))] as number) : Number.NaN,
    livenessProbes: lat.length,
    eventsDelivered: ((await subs?.events()) ?? 0) - delivered0,
    // Server CPU per span: what the subscribers cost the server, whatever else ran on the machine.
    serverUsPerSpan: (serverMs * 1000) / Math.max(1, r.spans),
    subscribersCpuMs,
    cores: {
      server: serverMs / wallMs,
      postgres: opts.pgPid === null ? 0 : (treeCpuMs(opts.pgPid) - cpu0.pg) / wallMs,
      subscribers: subscribersCpuMs / wallMs,
      machine: (machineBusyMs() - cpu0.machine) / wallMs,
    },
  };
}

/** GET /api/liveness on its own connection, one at a time, every `everyMs`, from a process of its own. */
async function startLivenessProbe(port: number, everyMs: number): Promise<{ stop(): Promise<number[]> }> {
  const child = fork(fileURLToPath(new URL('./liveness-probe.ts', import.meta.url)), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const reply = <T>(key: string) =>
    new Promise<T>((resolve, reject) => {
      const on = (m: Record<string, unknown>) => {
        if (!(key in m)) return;
        child.off('message', on);
        resolve(m[key] as T);
      };
      child.on('message', on);
      child.once('exit', (code) => reject(new Error(`liveness probe exited (${code})`)));
    });
  await reply<true>('ready');
  child.send({ start: { port, everyMs } });
  return {
    stop: async () => {
      const latencies = reply<number[]>('latencies');
      child.send({ stop: true });
      const result = await latencies;
      child.disconnect();
      return result;
    },
  };
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
