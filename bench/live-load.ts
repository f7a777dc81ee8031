/**
 * The live-load row: ingest throughput and liveness p99 of one server, first with no live clients,
 * then with `subscribers` of them connected (SSE, GraphQL over SSE and GraphQL over WebSocket in
 * equal parts) and reading every event. The server runs with rate limits off (it is driven over
 * HTTP harder than any per-client limit allows) and with live.max_clients_per_key raised to the
 * budget, since every bench client is the same local caller. The subscribers run in a child process
 * of their own, so their reading does not slow the load generator or the liveness probe here.
 */
import { fork } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineBusyMs, processCpuMs, treeCpuMs } from './proc-stats.ts';
import { runCell, type CellResult } from './load.ts';
import { Template } from './payloads.ts';
import { startServerProc, type ServerProc } from './server-proc.ts';
import { summarise, type StallRecord, type StallSummary } from './stall-report.ts';

export interface LiveLoadOptions {
  /** postgres:// URL of a fresh database; undefined runs the server on PGlite. */
  databaseUrl?: string | undefined;
  /** Write a V8 CPU profile of the server into this directory. */
  cpuProfDir?: string | undefined;
  /** Node flags for the server process (`--server-node-flags`). */
  nodeFlags?: string[] | undefined;
  /** Load bench/stall-trace.ts into the server and summarise each phase's stalls (`--stall-trace`). */
  stallTrace?: boolean | undefined;
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
  /** With `--stall-trace`: collections, late ticks and what the slowest probes overlapped. */
  stalls?: StallSummary | null;
  /** The probes' answers, [wall ms sent, ms]; matched with the stall record once the server has exited. */
  probes: [number, number][];
}

export interface LiveLoadResult {
  without: LiveRun;
  with: LiveRun;
  mix: { sse: number; graphqlSse: number; graphqlWs: number };
  throughputRatio: number;
  rateLimits: 'off';
  backend: 'pglite' | 'postgres';
}

export async function runLiveLoad(
  opts: LiveLoadOptions,
  progress: (msg: string) => void,
): Promise<LiveLoadResult> {
  const trace = opts.stallTrace ? stallTraceSetup() : null;
  const server = await startServerProc({
    databaseUrl: opts.databaseUrl,
    cpuProfDir: opts.cpuProfDir,
    nodeFlags: [...(opts.nodeFlags ?? []), ...(trace?.nodeFlags ?? [])],
    env: trace?.env,
    rateLimits: 'off',
    readyTimeoutMs: 180_000,
    extraConfig: `live:\n  max_clients_per_key: ${Math.min(200, Math.max(1, opts.subscribers))}\n`,
  });
  let result: LiveLoadResult | undefined;
  try {
    const template = Template.build('native', opts.batch);
    progress(
      `live load: ${opts.batch}-span native batches, concurrency ${opts.concurrency}, rate limits off`,
    );
    const without = await measure(server, template, opts, null);
    progress(
      `live load without subscribers: ${Math.round(without.spansPerSec)} spans/s, liveness p99 ${without.livenessP99Ms.toFixed(1)} ms`,
    );
    const subs = await connect(server, opts.subscribers);
    try {
      const withSubs = await measure(server, template, opts, subs);
      progress(
        `live load with ${opts.subscribers} subscribers: ${Math.round(withSubs.spansPerSec)} spans/s, liveness p99 ${withSubs.livenessP99Ms.toFixed(1)} ms, ${withSubs.eventsDelivered} events delivered`,
      );
      result = {
        without,
        with: withSubs,
        mix: subs.mix,
        throughputRatio: withSubs.spansPerSec / without.spansPerSec,
        rateLimits: 'off',
        backend: opts.databaseUrl ? 'postgres' : 'pglite',
      };
    } finally {
      subs.close();
    }
  } finally {
    await server.stop();
    server.dispose();
  }
  // The server writes its record when it exits.
  if (trace) {
    const record = trace.read();
    if (!record) progress('stall trace: the server wrote no record');
    for (const run of [result.without, result.with])
      run.stalls = record && summarise(record, run.probes, run.livenessP99Ms);
  }
  return result;
}

/** Node flags and environment that load bench/stall-trace.ts into the server, and its record's reader. */
function stallTraceSetup(): {
  nodeFlags: string[];
  env: Record<string, string>;
  read(): StallRecord | null;
} {
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-stalls-'));
  const file = join(dir, 'stalls.json');
  return {
    // tsx's loader first, so the TypeScript preload can run (the server itself runs compiled, from dist/).
    nodeFlags: [
      `--import=${import.meta.resolve('tsx/esm')}`,
      `--import=${new URL('./stall-trace.ts', import.meta.url).href}`,
    ],
    env: { SPYGLASS_BENCH_STALL_TRACE: file },
    read: () => {
      try {
        return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as StallRecord) : null;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

async function measure(
  server: ServerProc,
  template: Template,
  opts: LiveLoadOptions,
  subs: Subscribers | null,
): Promise<LiveRun> {
  const delivered0 = (await subs?.events()) ?? 0;
  const cpu0 = {
    server: processCpuMs(server.pid),
    subs: subs ? processCpuMs(subs.pid) : 0,
    pg: opts.pgPid === null ? 0 : treeCpuMs(opts.pgPid),
    machine: machineBusyMs(),
    at: performance.now(),
  };
  const probe = await startLivenessProbe(server.httpPort, opts.probeEveryMs);
  let r: CellResult;
  let probes: [number, number][] = [];
  try {
    r = await runCell({ httpPort: server.httpPort, grpcPort: server.grpcPort }, template, {
      concurrency: opts.concurrency,
      warmupMs: opts.warmupMs,
      durationMs: opts.durationMs,
      maxSpans: 5_000_000,
      requestTimeoutMs: 30_000,
      nextSeq: opts.nextSeq,
      t0: opts.t0,
    });
  } finally {
    probes = await probe.stop();
  }
  const lat = probes.map((p) => p[1]).sort((a, b) => a - b);
  const wallMs = performance.now() - cpu0.at;
  const serverMs = processCpuMs(server.pid) - cpu0.server;
  const subscribersCpuMs = subs ? processCpuMs(subs.pid) - cpu0.subs : 0;
  return {
    subscribers: subs?.count ?? 0,
    spansPerSec: r.spansPerSec,
    p99Ms: r.p99Ms,
    errors: r.errors,
    livenessP99Ms: lat.length
      ? (lat[Math.min(lat.length - 1, Math.floor(0.99 * lat.length))] as number)
      : Number.NaN,
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
    probes,
  };
}

/** GET /api/liveness on its own connection, one at a time, every `everyMs`, from a process of its own. */
export async function startLivenessProbe(
  port: number,
  everyMs: number,
): Promise<{ stop(): Promise<[number, number][]> }> {
  const child = fork(fileURLToPath(new URL('./liveness-probe.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
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
      const answers = reply<[number, number][]>('answers');
      child.send({ stop: true });
      const result = await answers;
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
  const child = fork(fileURLToPath(new URL('./live-subscribers.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
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
