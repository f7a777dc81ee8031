/**
 * The noisy-neighbour row (issue 25 item 2): a victim project sends a steady 500 spans/s in 50-span
 * native batches (open loop: one request every 100 ms whatever the answers) to a PostgreSQL server,
 * first alone, then while a flooding project sends 10,000-span batches on three connections as
 * fast as they are answered (closed loop, in a process of its own: flood.ts). Each project has its
 * own project-bound API key, as tenants do. Targets: during the flood the victim keeps ≥ 95% of its
 * rate with p99 < 250 ms. The server runs with SPYGLASS_RATE_LIMITS=off: the flood is far past any
 * per-client limit (rate_limits.spans_per_minute would refuse it; this row shows the queue alone
 * keeps the victim's share).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { bootstrapKey } from '../test/helpers/auth.ts';
import type { CellResult } from './load.ts';
import { Template } from './payloads.ts';
import { startLivenessProbe } from './live-load.ts';
import { startServerProc, type ServerProc } from './server-proc.ts';

export interface NoisyOptions {
  databaseUrl: string;
  workers: number;
  /** Needed with workers above 1. */
  redisUrl?: string | undefined;
  nodeFlags?: string[] | undefined;
  /** Measured seconds of each phase. */
  phaseMs: number;
  /** Before each measured phase (the flood's: after it started). */
  warmupMs: number;
  victimSpansPerSec: number;
  victimBatch: number;
  floodBatch: number;
  floodConnections: number;
  nextSeq: (n: number) => number;
  t0: number;
}

export interface VictimRun {
  spansPerSec: number;
  /** Acknowledged spans/s over the rate sent. */
  kept: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  errors: number;
  errorKinds: Record<string, number>;
  /** p99 of GET /api/liveness during the phase (measured during the flood only). */
  livenessP99Ms?: number;
}

export interface NoisyResult {
  workers: number;
  alone: VictimRun;
  flooded: VictimRun;
  flood: Pick<CellResult, 'spansPerSec' | 'requests' | 'errors' | 'errorKinds' | 'p50Ms' | 'p99Ms'>;
  /** Acknowledged vs stored per project (acknowledged spans must all be stored). */
  victimAcked: number;
  victimStored: number;
  floodAcked: number;
  floodStored: number;
  opts: Pick<
    NoisyOptions,
    'phaseMs' | 'victimSpansPerSec' | 'victimBatch' | 'floodBatch' | 'floodConnections'
  >;
}

export async function runNoisyNeighbour(
  opts: NoisyOptions,
  progress: (msg: string) => void,
): Promise<NoisyResult> {
  const boot = bootstrapKey();
  const workerEnv: Record<string, string> =
    opts.workers > 1
      ? {
          SPYGLASS_WORKERS: String(opts.workers),
          SPYGLASS_REDIS_URL: opts.redisUrl as string,
          SPYGLASS_CLUSTER_NAME: `bench-noisy-${process.pid}`,
        }
      : {};
  let floodProc: ChildProcess | undefined;
  const server = await startServerProc({
    databaseUrl: opts.databaseUrl,
    nodeFlags: opts.nodeFlags,
    rateLimits: 'off',
    env: { SPYGLASS_API_KEYS: boot, ...workerEnv },
  });
  try {
    const victimKey = await tenant(server, boot, 'victim');
    const floodKey = await tenant(server, boot, 'flood');
    const template = Template.build('native', opts.victimBatch);
    const victim = new Victim(server.httpPort, victimKey, template, opts);
    progress(
      `noisy neighbour: victim alone, ${opts.victimSpansPerSec} spans/s in ${opts.victimBatch}-span batches`,
    );
    await victim.run(opts.warmupMs);
    const alone = await victim.run(opts.phaseMs);
    progress(
      `noisy neighbour: alone ${Math.round(alone.spansPerSec)} spans/s, p50 ${alone.p50Ms.toFixed(1)} ms, p99 ${alone.p99Ms.toFixed(1)} ms`,
    );
    progress(
      `noisy neighbour: flood of ${opts.floodBatch}-span batches on ${opts.floodConnections} connections`,
    );
    const { child, result: flood } = await startFlood(
      server,
      floodKey,
      opts,
      2 * opts.warmupMs + opts.phaseMs,
    );
    floodProc = child;
    progress('noisy neighbour: flood started');
    await victim.run(2 * opts.warmupMs);
    // GET /api/liveness every 20 ms beside the victim: how long the server's event loop keeps
    // anyone waiting, apart from the victim's wait for its commit.
    const probe = await startLivenessProbe(server.httpPort, 20);
    const flooded = await victim.run(opts.phaseMs);
    flooded.livenessP99Ms = p99((await probe.stop()).map((p) => p[1]));
    progress("noisy neighbour: victim phase done, waiting for the flood's last answers");
    const floodResult = await flood;
    progress(
      `noisy neighbour: during the flood ${Math.round(flooded.spansPerSec)} spans/s, p50 ${flooded.p50Ms.toFixed(1)} ms, p99 ${flooded.p99Ms.toFixed(1)} ms; flood ${Math.round(floodResult.spansPerSec)} spans/s`,
    );
    const stopCode = await server.stop();
    if (stopCode !== 0) progress(`noisy neighbour: server exited with ${stopCode}`);
    const stored = await countByProject(opts.databaseUrl);
    return {
      workers: opts.workers,
      alone,
      flooded,
      flood: {
        spansPerSec: floodResult.spansPerSec,
        requests: floodResult.requests,
        errors: floodResult.errors,
        errorKinds: floodResult.errorKinds,
        p50Ms: floodResult.p50Ms,
        p99Ms: floodResult.p99Ms,
      },
      victimAcked: victim.ackedTotal,
      victimStored: stored.get('victim') ?? 0,
      floodAcked: floodResult.ackedTotal,
      floodStored: stored.get('flood') ?? 0,
      opts: {
        phaseMs: opts.phaseMs,
        victimSpansPerSec: opts.victimSpansPerSec,
        victimBatch: opts.victimBatch,
        floodBatch: opts.floodBatch,
        floodConnections: opts.floodConnections,
      },
    };
  } finally {
    if (floodProc && floodProc.exitCode === null) floodProc.kill('SIGKILL');
    await server.stop(5_000);
    server.dispose();
  }
}

/** A project and an admin key bound to it (the flood's and the victim's own keys). */
async function tenant(server: ServerProc, boot: string, id: string): Promise<string> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.httpUrl}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': boot, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  await post('/api/projects', { id, name: id });
  return String(
    (await post('/api/auth/api-keys', { name: `${id}-ingest`, role: 'admin', project_id: id })).key,
  );
}

/** Open loop: one batch every batch/rate seconds on its own schedule; up to 64 in flight. */
class Victim {
  ackedTotal = 0;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });

  constructor(
    private readonly port: number,
    private readonly key: string,
    private readonly template: Template,
    private readonly opts: NoisyOptions,
  ) {}

  /** Sends for `ms`, then waits (bounded) for the answers; counts what was sent in the window. */
  async run(ms: number): Promise<VictimRun> {
    const everyMs = (1000 * this.template.spans) / this.opts.victimSpansPerSec;
    const start = performance.now();
    const sent: Promise<{ ms: number; err: string | null }>[] = [];
    let inFlight = 0;
    const errorKinds: Record<string, number> = {};
    for (let k = 0; start + k * everyMs < start + ms; k++) {
      const due = start + k * everyMs;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (inFlight >= 64) {
        errorKinds['not sent: 64 in flight'] = (errorKinds['not sent: 64 in flight'] ?? 0) + 1;
        continue;
      }
      inFlight++;
      sent.push(this.send().finally(() => inFlight--));
    }
    const answers = await Promise.all(sent);
    const elapsed = Math.max(ms, 1);
    const ok = answers.filter((a) => a.err === null);
    for (const a of answers) if (a.err !== null) errorKinds[a.err] = (errorKinds[a.err] ?? 0) + 1;
    this.ackedTotal += ok.length * this.template.spans;
    const lat = ok.map((a) => a.ms).sort((a, b) => a - b);
    const pct = (p: number) =>
      lat.length
        ? (lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] as number)
        : Number.NaN;
    const spansPerSec = (ok.length * this.template.spans * 1000) / elapsed;
    return {
      spansPerSec,
      kept: spansPerSec / this.opts.victimSpansPerSec,
      p50Ms: pct(0.5),
      p99Ms: pct(0.99),
      requests: answers.length,
      errors: Object.values(errorKinds).reduce((a, b) => a + b, 0),
      errorKinds,
    };
  }

  private send(): Promise<{ ms: number; err: string | null }> {
    const body = this.template.render(this.opts.nextSeq(this.template.spans), this.opts.t0);
    const t = performance.now();
    return new Promise((resolve) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.port,
          method: 'POST',
          path: '/api/traces/spans',
          agent: this.agent,
          timeout: 30_000,
          headers: {
            'x-api-key': this.key,
            'content-type': 'application/json',
            'content-length': body.length,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            resolve({
              ms: performance.now() - t,
              err: res.statusCode === 202 ? null : `http ${res.statusCode}`,
            }),
          );
          res.on('error', () => resolve({ ms: performance.now() - t, err: 'response error' }));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (err: NodeJS.ErrnoException) =>
        resolve({
          ms: performance.now() - t,
          err: err.message === 'timeout' ? 'timeout' : (err.code ?? 'request error'),
        }),
      );
      req.end(body);
    });
  }
}

/** Forks flood.ts and starts its cell; resolves with the cell's result when it ends. */
async function startFlood(
  server: ServerProc,
  key: string,
  opts: NoisyOptions,
  durationMs: number,
): Promise<{ child: ChildProcess; result: Promise<CellResult> }> {
  const child = fork(fileURLToPath(new URL('./flood.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T>(key: string) =>
    new Promise<T>((resolve, reject) => {
      const on = (m: Record<string, unknown>) => {
        if ('error' in m) reject(new Error(String(m.error)));
        else if (key in m) resolve(m[key] as T);
        else return;
        child.off('message', on);
      };
      child.on('message', on);
      child.once('exit', (code) => reject(new Error(`flood exited (${code})`)));
    });
  await next<true>('ready');
  const started = next<true>('started');
  const result = next<CellResult>('result');
  child.send({
    start: {
      httpPort: server.httpPort,
      grpcPort: server.grpcPort,
      key,
      batch: opts.floodBatch,
      connections: opts.floodConnections,
      durationMs,
      seqBase: 1_000_000_000,
      t0: opts.t0,
    },
  });
  await started;
  return { child, result };
}

async function countByProject(url: string): Promise<Map<string, number>> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<
      { project_id: string; n: number }[]
    >`select project_id, count(*)::int as n from spans group by project_id`;
    return new Map(rows.map((r) => [r.project_id, r.n]));
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export function formatNoisyReport(r: NoisyResult): string {
  const o = r.opts;
  const row = (phase: string, v: VictimRun) =>
    `${phase.padEnd(22)} ${fmt(v.spansPerSec).padStart(9)} ${`${(v.kept * 100).toFixed(0)}%`.padStart(6)} ${v.p50Ms.toFixed(1).padStart(8)} ${v.p99Ms.toFixed(1).padStart(8)} ${String(v.requests).padStart(9)}  ${
      v.errors
        ? Object.entries(v.errorKinds)
            .map(([k, n]) => `${k}×${n}`)
            .join(' ')
        : '0'
    }`;
  const lines = [
    '',
    `Noisy neighbour (PostgreSQL, ${r.workers} worker${r.workers > 1 ? 's' : ''}; SPYGLASS_RATE_LIMITS=off: the flood is far past any per-client limit, the queue alone keeps the victim's share):`,
    `victim: ${o.victimSpansPerSec} spans/s in ${o.victimBatch}-span native batches, open loop, own project key; flood: ${o.floodBatch}-span native batches on ${o.floodConnections} connections, closed loop, another project's key; ${o.phaseMs / 1000} s per phase`,
    `${'victim'.padEnd(22)} ${'spans/s'.padStart(9)} ${'kept'.padStart(6)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'requests'.padStart(9)}  errors`,
    row('alone', r.alone),
    row('during the flood', r.flooded),
    `liveness (GET /api/liveness every 20 ms) p99 during the flood: ${r.flooded.livenessP99Ms?.toFixed(1) ?? '-'} ms (the event loop's share of the victim's wait)`,
    `flood: ${fmt(r.flood.spansPerSec)} spans/s, p50 ${r.flood.p50Ms.toFixed(0)} ms, ${
      r.flood.errors
        ? Object.entries(r.flood.errorKinds)
            .map(([k, n]) => `${k}×${n}`)
            .join(' ')
        : 'no errors'
    }${r.flood.errorKinds['http 429'] ? ' (429: its own queue share full)' : ''}`,
    `acknowledged/stored: victim ${fmt(r.victimAcked)}/${fmt(r.victimStored)}, flood ${fmt(r.floodAcked)}/${fmt(r.floodStored)}`,
  ];
  for (const t of noisyTargets(r))
    lines.push(`${t.pass ? 'PASS' : 'FAIL'}  ${t.what}: ${t.value} (target ${t.target})`);
  return `${lines.join('\n')}\n`;
}

export function noisyTargets(
  r: NoisyResult,
): { what: string; value: string; target: string; pass: boolean }[] {
  return [
    {
      what: 'noisy neighbour: victim rate during the flood',
      value: `${(r.flooded.kept * 100).toFixed(0)}% of ${r.opts.victimSpansPerSec} spans/s`,
      target: '≥ 95%',
      pass: r.flooded.kept >= 0.95,
    },
    {
      what: 'noisy neighbour: victim p99 during the flood',
      value: `${r.flooded.p99Ms.toFixed(1)} ms`,
      target: '< 250 ms',
      pass: r.flooded.p99Ms < 250,
    },
    {
      what: 'noisy neighbour: every acknowledged span stored',
      value: `${fmt(r.victimStored + r.floodStored)} of ${fmt(r.victimAcked + r.floodAcked)}`,
      target: 'all',
      pass: r.victimStored >= r.victimAcked && r.floodStored >= r.floodAcked,
    },
  ];
}

function p99(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  return v.length ? (v[Math.min(v.length - 1, Math.floor(0.99 * v.length))] as number) : Number.NaN;
}

const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
