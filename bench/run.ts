/**
 * `npm run bench`: ingest throughput of a real Spyglass server (child process) per back end
 * (PGlite, PostgreSQL) × protocol (native JSON, OTLP/JSON, OTLP/protobuf, OTLP/gRPC) × batch size,
 * with latency and peak RSS, plus database-side ceilings (raw COPY into the same indexed table and
 * the alternatives for the writer's insert). Figures on stdout and in bench/results.json; progress
 * on stderr.
 *
 *   npm run bench                       full run (~15 min)
 *   npm run bench -- --quick            smoke run (~40 s)
 *   npm run bench -- --backends postgres --protocols native,otlp-proto --batches 500
 *   npm run bench -- --cpu-prof /tmp/prof   V8 CPU profiles of each server process
 *   npm run bench -- --scale            only the scale-out rows: PostgreSQL, 1 and 2 workers, both payload profiles, disk per span
 *   npm run bench -- --otel-real        only the real-exporter row (OpenTelemetry SDK, OTLP/HTTP protobuf and gRPC, beside a COPY of the same rows)
 *   npm run bench -- --noisy            only the noisy-neighbour row (a victim project's rate and p99 alone and during another's flood)
 *   npm run bench -- --fresh-reads      only the fresh-reads row (every read right after a 100,000-span load and 90 s later, both back ends)
 *   npm run bench -- --ui               only the dashboard row (dist/ui in Chromium: bundle size, first renders, long tasks, heap)
 *   npm run bench -- --help
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatFresh, runReadFresh, type FreshResult } from './read-fresh.ts';
import { formatReport, runReadPath, type ReadPathResult } from './read-path.ts';
import {
  formatScorecardReport,
  runScorecardBench,
  type ScorecardBenchResult,
} from './scorecards.ts';
import {
  formatReliabilityReport,
  runReliabilityBench,
  type ReliabilityBenchResult,
} from './reliability.ts';
import { formatScanReport, runScanBench, type ScanBenchResult } from './scan.ts';
import { formatUiReport, runUiBench, type UiBenchResult } from './ui.ts';
import { formatSdkReport, runSdkBench, type SdkBenchResult } from './sdk.ts';
import postgres from 'postgres';
import { startPgCluster, type PgCluster } from '../test/helpers/pg-cluster.ts';
import {
  encodeCosts,
  runInsertMethod,
  type InsertMethod,
  type MethodResult,
} from './copy-bench.ts';
import { runCell, seqAllocator, type CellResult } from './load.ts';
import { runLiveLoad, type LiveLoadResult } from './live-load.ts';
import {
  formatNoisyReport,
  noisyTargets,
  runNoisyNeighbour,
  type NoisyResult,
} from './noisy-neighbour.ts';
import { renderStalls } from './stall-report.ts';
import { formatOtelReal, runOtelReal, type OtelRealResult } from './otel-real.ts';
import { OTEL_PROTOCOLS } from './otel-traffic.ts';
import { PROTOCOLS, Template, type Protocol } from './payloads.ts';
import { PROFILES, type PayloadProfile } from './genai-profile.ts';
import {
  childPids,
  cpuDelta,
  cpuSnapshot,
  machineBusyMs,
  postmasterPid,
  processCpuMs,
} from './proc-stats.ts';
import { startRedis } from '../test/helpers/redis.ts';
import { formatDiskReport, runDiskRow, type DiskResult } from './disk.ts';
import { formatScaleReport, newProfiles, type WhereItGoes } from './scale-report.ts';
import { topFunctions } from './profile-top.ts';
import { readStatusKb, startServerProc } from './server-proc.ts';
import { measureStages, type StageResult } from './stages.ts';

type Backend = 'pglite' | 'postgres';
const BACKENDS: readonly Backend[] = ['pglite', 'postgres'];
/** Database-side methods by id: [method, TCP_NODELAY]. `writer` is insertSpans() as the server runs it today. */
const METHODS: Record<string, [InsertMethod, boolean]> = {
  copy: ['copy', true],
  'copy-nagle': ['copy', false],
  writer: ['writer', false],
  'writer-nodelay': ['writer', true],
  'stage-rollups': ['stage-rollups', true],
  jsonpop: ['jsonpop', true],
  stage: ['stage', true],
};
const METHOD_IDS = Object.keys(METHODS);

const HERE = dirname(fileURLToPath(import.meta.url));

const USAGE = `usage: npm run bench -- [options]
  --quick                 short smoke run (~40 s; no separate PGlite first-start measurement; read path on 100,000 spans)
  --scale                 only the scale-out rows: PostgreSQL, native and OTLP/protobuf, 1 and 2 workers, both
                          payload profiles, disk per span (same as --backends postgres --protocols native,otlp-proto
                          --no-copy --no-read --no-scorecards --no-scan --no-sdk --no-reliability --no-live;
                          any of these given explicitly wins)
  --no-read               skip the read-path part (1,000,000 spans loaded into PostgreSQL, ~6 min)
  --no-scorecards         skip the scorecards part (100 servers × 90 days of health history, 4-7 min to load on 2 cores)
  --no-scan               skip the security-scan part (one scan run over 50 fixture servers, ~1 min)
  --no-sdk                skip the agent SDK part (guard overhead per wrapped MCP call, span export rate; ~1 min)
  --no-reliability        skip SLO evaluation, anomaly detection and the 30-day cost breakdown (1,000,000 spans over 30 days, ~6 min to load)
  --backends LIST         pglite,postgres (default both; none = database-side ceilings only)
  --protocols LIST        native,otlp-json,otlp-proto,otlp-grpc (default all)
  --batches LIST          spans per request (default 25,500)
  --profiles LIST         payload profiles (default small,genai): small = today's spans (~0.6-1.1 KB on the wire
                          with few attributes), genai = ~1 KB spans with ~20 gen_ai.*/mcp.*/OpenInference attributes
  --workers LIST          SPYGLASS_WORKERS per PostgreSQL server (default 1,2); above 1 starts a throwaway
                          redis-server; skipped with a message when the server does not fork workers
  --disk-spans N          spans per profile for the disk-per-span row (default 100000; quick 10000; 0 = skip;
                          needs PostgreSQL)
  --top N                 functions in "where it goes" (with --cpu-prof; default 10)
  --duration SECONDS      measured seconds per cell (default 5; quick 0.8)
  --warmup SECONDS        warm-up seconds per cell (default 1; quick 0.2)
  --concurrency N         requests in flight (default 16)
  --copy-rows N           rows per database-side method (default 100000; quick 5000)
  --copy-groups LIST      group sizes for the database-side methods (default 500,5000; quick 500)
  --methods LIST          database-side methods (default all): copy,copy-nagle,writer,writer-nodelay,
                          stage-rollups,jsonpop,stage
  --no-copy               skip the database-side ceilings
  --cpu-prof DIR          write a V8 CPU profile of each server process into DIR
  --rate-limits off|high  off (default): SPYGLASS_RATE_LIMITS=off, one bench client is far past any per-client
                          limit; high: limiter in the request path with limits far above the load
  --server-node-flags=F   node flags for the server processes, e.g. --server-node-flags="--max-old-space-size=160"
  --server-warmup SECONDS before the first cell of each server, send every cell's payload for this long, unmeasured
                          (default 0): the cells then measure a server whose JIT has compiled the request path;
                          at batch 25 a fresh server's first seconds cost several times its steady CPU per span
                          (docs/benchmarks.md, batch 25's server CPU); its spans count in "spans acknowledged"
  --wait-idle SECONDS     before each cell, wait up to this long for other processes to use < 25% of
                          one core (default 0: don't wait); for a machine shared with other work
  --otel-real             only the otel-real row (same as --backends none --no-copy --no-read --no-scorecards
                          --no-scan --no-sdk --no-reliability --no-live --no-noisy; any of these given explicitly
                          wins): spans recorded through the OpenTelemetry SDK (one invoke_agent, three chat with
                          600-byte prompt and completion, four MCP tools/call per trace, ~20 attributes a span)
                          sent by its OTLPTraceExporter, 16 exports of 512 spans in flight, into PostgreSQL with
                          rate limits off, beside a raw COPY of the same stored rows into a same-indexed spans;
                          2 s warm-up + 10 s per protocol (quick 0.5 + 3 s) unless --warmup / --duration say
  --no-otel-real          skip the otel-real row
  --otel-protocols LIST   otlp-proto,otlp-grpc (default both)
  --otel-copy-rows N      stored rows copied for the otel-real COPY (default 100000; quick 10000)
  --no-otel-checkpoint    no CHECKPOINT before each otel-real cell (by default each protocol starts
                          right after one, so that no cell alone pays a checkpoint's full-page writes)
  --otel-pg-diag          per otel-real cell, where PostgreSQL's CPU goes (bench/otel-pg-diag.ts): by process
                          kind and backend command from /proc, autovacuum runs from the log, pg_stat_statements;
                          restarts the cluster with pg_stat_statements loaded (a diagnosis: it costs CPU too)
  --otel-pg-set 'S; …'    with --otel-pg-diag (implied): settings for the cluster (ALTER SYSTEM), e.g.
                          'autovacuum = off', to see what a part of the database's work costs by taking it away
  --otel-perf DIR         perf record (the whole machine) during each otel-real cell into DIR, and a report of
                          the postgres processes' busiest functions beside it (DIR/N-protocol.txt)
  --server-bin FILE       the server of the ingest cells and the otel-real row: another build's bin/spyglass.js
                          (before/after comparisons)
  --noisy                 only the noisy-neighbour row (same as --backends none --no-copy --no-read --no-scorecards
                          --no-scan --no-sdk --no-reliability --no-live; any of these given explicitly wins)
  --no-noisy              skip the noisy-neighbour row (PostgreSQL: a project's steady 500 spans/s in 50-span batches,
                          alone and while another floods 10,000-span batches on 3 connections)
  --noisy-phase SECONDS   measured seconds per noisy-neighbour phase (default 10; quick 2)
  --noisy-workers N       SPYGLASS_WORKERS of the noisy-neighbour server (default 1; above 1 starts a redis-server)
  --no-live               skip the live-load row (ingest with and without 200 live subscribers)
  --live-subscribers N    live clients in the live-load row (default 200: SSE, GraphQL-SSE, GraphQL-WS in thirds)
  --stall-trace           in the live-load row, record the server's collections and late event-loop ticks (on CPU vs
                          run queue) and say what the slowest liveness probes of each phase overlapped
  --ui                    only the dashboard row: dist/ui in /usr/bin/chromium (playwright-core) against a PGlite
                          server with rate limits off: initial JS + CSS gzip, overview first render, session page
                          with 2,000 spans (render after data, long tasks while scrolling), live page at 200 spans/s
                          (long tasks, heap); pages still showing the placeholder are skipped with a line saying so
  --no-ui                 skip the dashboard row
  --fresh-reads           only the fresh-reads row (same as --backends none --protocols none and every --no-<part> but
                          this one; any given explicitly wins): on PGlite and PostgreSQL, 100,000 spans loaded through the ingest path, every read
                          endpoint asked at once (20 rounds) and again 90 s after the last span (quick: 20,000 spans,
                          10 s), p50 ratio per endpoint (target ≤ 1.5×) and EXPLAIN ANALYZE at both moments
  --no-fresh-reads        skip the fresh-reads row
  --ui-live-seconds N     seconds of the live page under load (default 30; quick 5)
  --out FILE              JSON results (default bench/results.json)`;

function parseCli() {
  try {
    return parseArgs({
      options: {
        quick: { type: 'boolean', default: false },
        scale: { type: 'boolean', default: false },
        profiles: { type: 'string' },
        workers: { type: 'string' },
        'disk-spans': { type: 'string' },
        top: { type: 'string' },
        backends: { type: 'string' },
        protocols: { type: 'string' },
        batches: { type: 'string' },
        duration: { type: 'string' },
        warmup: { type: 'string' },
        concurrency: { type: 'string' },
        'copy-rows': { type: 'string' },
        'copy-groups': { type: 'string' },
        methods: { type: 'string' },
        // No defaults: --scale turns them on unless given.
        'no-copy': { type: 'boolean' },
        'no-read': { type: 'boolean' },
        'no-scorecards': { type: 'boolean' },
        'no-scan': { type: 'boolean' },
        'no-sdk': { type: 'boolean' },
        'no-reliability': { type: 'boolean' },
        'no-live': { type: 'boolean' },
        ui: { type: 'boolean', default: false },
        'no-ui': { type: 'boolean' },
        'ui-live-seconds': { type: 'string' },
        noisy: { type: 'boolean', default: false },
        'fresh-reads': { type: 'boolean', default: false },
        'no-fresh-reads': { type: 'boolean' },
        'otel-real': { type: 'boolean', default: false },
        'no-otel-real': { type: 'boolean' },
        'otel-protocols': { type: 'string' },
        'otel-copy-rows': { type: 'string' },
        'no-otel-checkpoint': { type: 'boolean' },
        'otel-pg-diag': { type: 'boolean' },
        'otel-perf': { type: 'string' },
        'otel-pg-set': { type: 'string' },
        'server-bin': { type: 'string' },
        'no-noisy': { type: 'boolean' },
        'noisy-phase': { type: 'string' },
        'noisy-workers': { type: 'string' },
        'live-subscribers': { type: 'string' },
        'stall-trace': { type: 'boolean' },
        'cpu-prof': { type: 'string' },
        'rate-limits': { type: 'string' },
        'wait-idle': { type: 'string' },
        'server-warmup': { type: 'string' },
        'server-node-flags': { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (err) {
    return usage((err as Error).message);
  }
}
const args = parseCli();
/** The optional parts of a run; a mode that runs one part alone skips the others unless told. */
const PARTS = [
  'no-copy',
  'no-read',
  'no-scorecards',
  'no-scan',
  'no-sdk',
  'no-reliability',
  'no-live',
  'no-noisy',
  'no-otel-real',
  'no-ui',
  'no-fresh-reads',
] as const;
function skipPartsBut(keep: (typeof PARTS)[number] | null): void {
  for (const k of PARTS) if (k !== keep) args[k] ??= true;
}
if (args.scale) {
  args.backends ??= 'postgres';
  args.protocols ??= 'native,otlp-proto';
  skipPartsBut(null);
}
if (args['otel-real']) {
  args.backends ??= 'none';
  args.protocols ??= 'none';
  skipPartsBut('no-otel-real');
}
if (args.noisy) {
  args.backends ??= 'none';
  args.protocols ??= 'none';
  skipPartsBut('no-noisy');
}
if (args['fresh-reads']) {
  args.backends ??= 'none';
  args.protocols ??= 'none';
  skipPartsBut('no-fresh-reads');
}

if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

function list<T extends string>(raw: string | undefined, all: readonly T[], what: string): T[] {
  if (!raw) return [...all];
  if (raw === 'none') return [];
  const out = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const v of out)
    if (!all.includes(v as T)) usage(`unknown ${what} "${v}" (one of ${all.join(', ')})`);
  return out as T[];
}
function num(raw: string | undefined, fallback: number, what: string, min = 0): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) usage(`--${what} must be a number ≥ ${min}`);
  return n;
}
/** The server runs in a temp cwd: make `--import ./x.mjs` / `--require=./x.cjs` paths absolute. */
function absolutizeFlags(flags: string[]): string[] {
  return flags.map((f, i) => {
    const eq = /^(--import|--require|-r)=(\..*)$/.exec(f);
    if (eq) return `${eq[1]}=${resolve(eq[2] as string)}`;
    return f.startsWith('.') && ['--import', '--require', '-r'].includes(flags[i - 1] ?? '')
      ? resolve(f)
      : f;
  });
}
function usage(msg: string): never {
  console.error(`bench: ${msg}\n${USAGE}`);
  process.exit(2);
}

const quick = args.quick;
const opts = {
  quick,
  backends: list(args.backends, BACKENDS, 'back end'),
  protocols: list(args.protocols, PROTOCOLS, 'protocol'),
  batches: (args.batches ?? '25,500')
    .split(',')
    .map((s) => num(s, 0, 'batches', 1))
    .map(Math.floor),
  profiles: list(args.profiles, PROFILES, 'profile'),
  workers: (args.workers ?? '1,2').split(',').map((s) => Math.floor(num(s, 0, 'workers', 1))),
  diskSpans: Math.floor(num(args['disk-spans'], quick ? 10_000 : 100_000, 'disk-spans')),
  top: Math.floor(num(args.top, 10, 'top', 1)),
  durationMs: num(args.duration, quick ? 0.8 : 5, 'duration', 0.1) * 1000,
  warmupMs: num(args.warmup, quick ? 0.2 : 1, 'warmup') * 1000,
  concurrency: Math.floor(num(args.concurrency, 16, 'concurrency', 1)),
  copyRows: Math.floor(num(args['copy-rows'], quick ? 5_000 : 100_000, 'copy-rows', 1)),
  copyGroups: (args['copy-groups'] ?? (quick ? '500' : '500,5000'))
    .split(',')
    .map((s) => Math.floor(num(s, 0, 'copy-groups', 1))),
  copy: !args['no-copy'],
  scale: args.scale ?? false,
  methods: list(args.methods, METHOD_IDS, 'method'),
  cpuProfDir: args['cpu-prof'] ? resolve(args['cpu-prof']) : undefined,
  rateLimits: (args['rate-limits'] ?? 'off') as 'high' | 'off',
  waitIdleMs: num(args['wait-idle'], 0, 'wait-idle') * 1000,
  serverWarmupMs: num(args['server-warmup'], 0, 'server-warmup') * 1000,
  serverNodeFlags: absolutizeFlags((args['server-node-flags'] ?? '').split(/\s+/).filter(Boolean)),
  // Another build's server for the ingest cells and the otel-real row (before/after in one run).
  serverBin: args['server-bin'] ? resolve(args['server-bin']) : undefined,
  out: resolve(args.out ?? join(HERE, 'results.json')),
};
if (opts.rateLimits !== 'high' && opts.rateLimits !== 'off') usage('--rate-limits is high or off');
if (opts.cpuProfDir) mkdirSync(opts.cpuProfDir, { recursive: true });

const REQUEST_TIMEOUT_MS = 30_000;
/** Per cell, so a pathological cell cannot run away. */
const MAX_SPANS_PER_CELL = 5_000_000;
/** Per database-side method. */
const METHOD_BUDGET_MS = quick ? 5_000 : 30_000;

const progress = (msg: string) =>
  process.stderr.write(
    `[bench ${((performance.now() - T_START) / 1000).toFixed(1).padStart(5)}s] ${msg}\n`,
  );
const T_START = performance.now();
const loadAtStart = loadavg()[0] ?? 0;

// ---- cleanup on every exit path ----

const cleanups: (() => Promise<unknown>)[] = [];
let cleaning: Promise<void> | null = null;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const fn of cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        process.stderr.write(`bench: cleanup failed: ${(err as Error).message}\n`);
      }
    }
  })();
  return cleaning;
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(sig, () => {
    progress(`${sig}: stopping servers and the PostgreSQL cluster`);
    const force = setTimeout(() => process.exit(130), 30_000);
    force.unref();
    void cleanup().finally(() => process.exit(130));
  });
}

// ---- the run ----

interface CellRecord extends CellResult {
  backend: Backend;
  /** SPYGLASS_WORKERS of the server. */
  workers: number;
  profile: PayloadProfile;
  protocol: Protocol;
  batch: number;
  bodyBytesPerSpan: number;
  peakRssMb: number;
  /** CPU per acknowledged span over the whole cell (warm-up included), µs. */
  serverUsPerSpan: number;
  postgresUsPerSpan: number;
  clientUsPerSpan: number;
  /** Server process CPU use during the cell, % of one core. */
  serverCpuPct: number;
  /** Kernel share of the server's CPU, %. */
  serverSysSharePct: number;
  /** PostgreSQL only: acknowledged spans per write transaction (the writer's mean group size). */
  spansPerCommit: number;
  /** CPU used by other processes on the machine during the cell, % of one core. */
  otherCpuPct: number;
  ratioToCopy?: number;
}
interface BackendRecord {
  backend: Backend;
  workers: number;
  /** VmHWM of the server that ran the cells. */
  peakRssMb: number;
  sampledPeakRssMb: number;
  idleRssMb: number;
  startupMs: number;
  /** PGlite only: VmHWM and start-up of the first start on an empty data dir (initdb in-process). */
  firstStart?: { peakRssMb: number; idleRssMb: number; startupMs: number };
  ackedSpans: number;
  storedSpans: number | null;
  exitCode: number | null;
}

/** The dashboard row (bench/ui.ts). */
async function uiRow(): Promise<UiBenchResult> {
  const liveSeconds = num(args['ui-live-seconds'], quick ? 5 : 30, 'ui-live-seconds', 1);
  progress('dashboard row: a PGlite server and headless Chromium');
  const r = await runUiBench(
    { overviewRuns: quick ? 3 : 5, liveSeconds, liveRate: 200, sessionSpans: 2_000 },
    progress,
  );
  process.stdout.write(formatUiReport(r, loadAtStart));
  return r;
}

async function main() {
  if (args.ui) {
    const ui = await uiRow();
    writeFileSync(
      opts.out,
      `${JSON.stringify({ generatedAt: new Date().toISOString(), ui }, null, 2)}\n`,
    );
    progress(`results written to ${opts.out}`);
    return;
  }
  const t0 = Date.now() - 2 * 3600_000;
  const nextSeq = seqAllocator();
  const load = loadAtStart;
  if (load > cpus().length * 0.5) {
    progress(
      `WARNING: load average ${load.toFixed(1)} on ${cpus().length} CPUs before the run: other work will distort the figures (see the "other CPU" column)`,
    );
  }

  progress(
    `building payload templates (${opts.protocols.join(', ')} × batch ${opts.batches.join(', ')} × ${opts.profiles.join(', ')})`,
  );
  const templates = new Map<string, Template>();
  for (const p of opts.protocols)
    for (const b of opts.batches)
      for (const pr of opts.profiles) templates.set(`${p}/${b}/${pr}`, Template.build(p, b, pr));

  let cluster: PgCluster | null = null;
  const needPg =
    opts.backends.includes('postgres') || opts.copy || !args['no-noisy'] || !args['no-otel-real'];
  if (needPg) {
    progress('starting a throwaway PostgreSQL cluster');
    cluster = await startPgCluster();
    const c = cluster;
    cleanups.push(() => c.stop());
    progress(`PostgreSQL on 127.0.0.1:${c.port}`);
  }
  const pgPid = cluster ? postmasterPid(cluster.dataDir) : null;

  if (opts.protocols.length > 0) progress('measuring the server-side stages in-process');
  // No ingest cells (--protocols none): nothing for the stages to explain.
  const stages =
    opts.protocols.length > 0 ? measureStages(opts.batches, opts.quick ? 100 : 300) : [];

  const cells: CellRecord[] = [];
  const backends: BackendRecord[] = [];
  const where: WhereItGoes[] = [];
  const skipped: string[] = [];
  // Workers need PostgreSQL and Redis (a PGlite data dir belongs to one process): PGlite runs once.
  // --protocols none: no ingest cells (e.g. only the disk row), so no server to start either.
  const runs =
    opts.protocols.length === 0
      ? []
      : opts.backends.flatMap((backend) =>
          (backend === 'postgres' ? opts.workers : [1]).map((workers) => ({ backend, workers })),
        );
  let redisUrl: string | undefined;
  for (const { backend, workers } of runs) {
    if (workers > 1 && redisUrl === undefined) {
      progress('starting a throwaway redis-server (workers above 1 need SPYGLASS_REDIS_URL)');
      const redis = await startRedis();
      cleanups.push(() => redis.stop());
      redisUrl = redis.url;
    }
    const databaseUrl =
      backend === 'postgres'
        ? await (cluster as PgCluster).createDatabase(`bench_ingest_w${workers}_${Date.now()}`)
        : undefined;
    const workerEnv: Record<string, string> =
      workers > 1
        ? {
            SPYGLASS_WORKERS: String(workers),
            SPYGLASS_REDIS_URL: redisUrl as string,
            SPYGLASS_CLUSTER_NAME: `bench-${process.pid}-${workers}`,
          }
        : {};
    const serverOpts = {
      databaseUrl,
      cpuProfDir: opts.cpuProfDir,
      rateLimits: opts.rateLimits,
      nodeFlags: opts.serverNodeFlags,
      env: workerEnv,
      ...(opts.serverBin ? { bin: opts.serverBin } : {}),
    };
    const profilesBefore = opts.cpuProfDir ? newProfiles(opts.cpuProfDir, new Set()) : [];
    let firstStart: BackendRecord['firstStart'];
    let dataDir: string | undefined;
    if (backend === 'pglite' && !opts.quick) {
      // The first start runs initdb inside the server process; measure it apart, then restart on
      // the initialised data dir, the state a server is in for the rest of its life.
      progress('first start of spyglass serve (pglite, empty data dir: initdb)');
      const first = await startServerProc({ ...serverOpts, cpuProfDir: undefined });
      cleanups.push(async () => {
        await first.stop(5_000);
        first.dispose();
      });
      firstStart = {
        idleRssMb: first.peakSampledMb(),
        peakRssMb: first.hwmMb(),
        startupMs: first.startupMs,
      };
      await first.stop();
      dataDir = first.dataDir;
      progress(
        `first start: ${(first.startupMs / 1000).toFixed(1)} s, peak RSS ${firstStart.peakRssMb.toFixed(0)} MB`,
      );
    }
    progress(
      `starting spyglass serve (${backend}${workers > 1 ? `, SPYGLASS_WORKERS=${workers}` : ''})`,
    );
    const server = await startServerProc({ ...serverOpts, dataDir });
    let stopped = false;
    cleanups.push(async () => {
      if (!stopped) await server.stop(5_000);
      server.dispose();
    });
    if (workers > 1 && !(await waitForWorkers(server.pid, workers))) {
      // A build without worker support runs one process whatever SPYGLASS_WORKERS says.
      const found = childPids(server.pid).length;
      skipped.push(
        `${backend} with ${workers} workers: the server forked ${found} worker process${found === 1 ? '' : 'es'} (this build does not support SPYGLASS_WORKERS=${workers}); rows skipped`,
      );
      progress(`WARNING: ${skipped[skipped.length - 1] ?? ''}`);
      await server.stop();
      stopped = true;
      continue;
    }
    const idleRssMb = readStatusKb(server.pid, 'VmRSS') / 1024;
    progress(
      `server pid ${server.pid} ready in ${(server.startupMs / 1000).toFixed(1)} s (settled ${(server.settleMs / 1000).toFixed(1)} s later), http :${server.httpPort}, grpc :${server.grpcPort}, RSS ${idleRssMb.toFixed(0)} MB idle`,
    );
    let acked = 0;
    const probe = databaseUrl ? postgres(databaseUrl, { max: 1, onnotice: () => {} }) : null;
    cleanups.push(async () => probe?.end({ timeout: 1 }));
    if (opts.serverWarmupMs > 0) {
      progress(`warming the server up: ${opts.serverWarmupMs / 1000} s of each cell's payload`);
      for (const protocol of opts.protocols)
        for (const batch of opts.batches)
          for (const profile of opts.profiles) {
            const r = await runCell(
              { httpPort: server.httpPort, grpcPort: server.grpcPort },
              templates.get(`${protocol}/${batch}/${profile}`) as Template,
              {
                concurrency: opts.concurrency,
                warmupMs: 0,
                durationMs: opts.serverWarmupMs,
                maxSpans: MAX_SPANS_PER_CELL,
                requestTimeoutMs: REQUEST_TIMEOUT_MS,
                nextSeq,
                t0,
              },
            );
            acked += r.ackedTotal;
          }
    }
    const loadFromUs = monotonicUs();
    for (const protocol of opts.protocols) {
      for (const batch of opts.batches)
        for (const profile of opts.profiles) {
          const template = templates.get(`${protocol}/${batch}/${profile}`) as Template;
          if (opts.waitIdleMs > 0) await waitForIdle(opts.waitIdleMs);
          server.resetPeak();
          const xidBefore = probe ? await nextXid(probe) : null;
          const before = cpuSnapshot(server.pid, backend === 'postgres' ? pgPid : null);
          const r = await runCell(
            { httpPort: server.httpPort, grpcPort: server.grpcPort },
            template,
            {
              concurrency: opts.concurrency,
              warmupMs: opts.warmupMs,
              durationMs: opts.durationMs,
              maxSpans: MAX_SPANS_PER_CELL,
              requestTimeoutMs: REQUEST_TIMEOUT_MS,
              nextSeq,
              t0,
            },
          );
          const cpu = cpuDelta(
            before,
            cpuSnapshot(server.pid, backend === 'postgres' ? pgPid : null),
          );
          // Write transactions in the cluster during the cell ≈ the writer's group commits.
          const commits = probe && xidBefore !== null ? (await nextXid(probe)) - xidBefore : null;
          acked += r.ackedTotal;
          const perSpan = (ms: number) =>
            r.ackedTotal > 0 ? (ms * 1000) / r.ackedTotal : Number.NaN;
          const rec: CellRecord = {
            ...r,
            backend,
            workers,
            profile,
            protocol,
            batch,
            bodyBytesPerSpan: template.byteLength / batch,
            peakRssMb: server.peakSampledMb(),
            serverUsPerSpan: perSpan(cpu.serverMs),
            postgresUsPerSpan: backend === 'postgres' ? perSpan(cpu.postgresMs) : Number.NaN,
            clientUsPerSpan: perSpan(cpu.clientMs),
            serverCpuPct: (cpu.serverMs / cpu.wallMs) * 100,
            spansPerCommit: commits ? r.ackedTotal / commits : Number.NaN,
            serverSysSharePct:
              cpu.serverMs > 0 ? (cpu.serverSysMs / cpu.serverMs) * 100 : Number.NaN,
            otherCpuPct: (cpu.otherMs / cpu.wallMs) * 100,
          };
          cells.push(rec);
          const errs = r.errors ? `, ${r.errors} errors ${JSON.stringify(r.errorKinds)}` : '';
          progress(
            `${backend}${workers > 1 ? ` ×${workers} workers` : ''} ${protocol} batch ${batch} ${profile}: ${fmtInt(r.spansPerSec)} spans/s, p50 ${r.p50Ms.toFixed(1)} ms, p95 ${r.p95Ms.toFixed(1)} ms, ` +
              `RSS ${rec.peakRssMb.toFixed(0)} MB, server ${rec.serverUsPerSpan.toFixed(0)} µs/span (${rec.serverSysSharePct.toFixed(0)}% kernel) at ${rec.serverCpuPct.toFixed(0)}% CPU, other load ${rec.otherCpuPct.toFixed(0)}%${errs}`,
          );
          if (r.spans === 0 && r.errors > 0) progress(`server log tail:\n${server.logTail(10)}`);
          await sleep(opts.quick ? 100 : 300);
        }
    }
    const loadToUs = monotonicUs();
    const sampledPeak = server.peakSampledMb();
    const hwm = server.hwmMb();
    let storedSpans: number | null = null;
    await probe?.end({ timeout: 5 });
    if (backend === 'postgres') storedSpans = await countRows(databaseUrl as string);
    progress(`stopping the ${backend} server`);
    const exitCode = await server.stop();
    stopped = true;
    if (exitCode !== 0)
      progress(`server exited with ${exitCode}; log tail:\n${server.logTail(15)}`);
    if (backend === 'pglite')
      storedSpans = await countPgliteRows(join(server.dataDir, 'pglite')).catch((err: unknown) => {
        progress(`could not count PGlite rows: ${(err as Error).message}`);
        return null;
      });
    if (opts.cpuProfDir) {
      const mine = cells.filter((c) => c.backend === backend && c.workers === workers);
      const files = newProfiles(opts.cpuProfDir, new Set(profilesBefore));
      // Only the samples taken during the cells: start-up (module compilation, migrations) is not ingest.
      let hot =
        files.length > 0
          ? topFunctions(files, opts.top, { fromUs: loadFromUs, toUs: loadToUs })
          : { busyUs: 0, top: [] };
      if (files.length > 0 && hot.busyUs === 0) hot = topFunctions(files, opts.top);
      where.push({
        backend,
        workers,
        files,
        ...hot,
        spyglassMs: mine.reduce((a, c) => a + (c.serverUsPerSpan * c.ackedTotal) / 1000, 0),
        postgresMs:
          backend === 'postgres'
            ? mine.reduce((a, c) => a + (c.postgresUsPerSpan * c.ackedTotal) / 1000, 0)
            : 0,
      });
    }
    backends.push({
      backend,
      workers,
      peakRssMb: hwm,
      sampledPeakRssMb: Math.max(
        sampledPeak,
        ...cells
          .filter((c) => c.backend === backend && c.workers === workers)
          .map((c) => c.peakRssMb),
      ),
      idleRssMb,
      startupMs: server.startupMs,
      firstStart,
      ackedSpans: acked,
      storedSpans,
      exitCode,
    });
    if (storedSpans !== null && storedSpans !== acked)
      progress(`WARNING: ${backend} acknowledged ${acked} spans but stored ${storedSpans}`);
  }

  const disk: DiskResult[] = [];
  if (cluster && opts.diskSpans > 0 && opts.backends.includes('postgres')) {
    for (const profile of opts.profiles) {
      disk.push(
        await runDiskRow(
          cluster,
          profile,
          opts.diskSpans,
          { rateLimits: opts.rateLimits, nodeFlags: opts.serverNodeFlags },
          { nextSeq, t0 },
          progress,
        ),
      );
      const d = disk[disk.length - 1] as DiskResult;
      progress(
        `disk: ${profile}: ${fmtInt(d.spansTotalBytes / Math.max(1, d.spans))} B/span in spans (table + indexes), ${fmtInt(d.databaseBytes / Math.max(1, d.spans))} B/span database, ${fmtInt(d.walBytes / Math.max(1, d.spans))} B/span WAL`,
      );
    }
  }

  const methods: MethodResult[] = [];
  let encode: ReturnType<typeof encodeCosts>[] = [];
  if (opts.copy && cluster) {
    encode = opts.copyGroups.map((g) => encodeCosts(g, t0));
    for (const [method, noDelay] of opts.methods.map(
      (id) => METHODS[id] as [InsertMethod, boolean],
    )) {
      for (const group of opts.copyGroups) {
        const url = await cluster.createDatabase(
          `bench_${method}_${noDelay ? 'nd' : 'nagle'}_${group}_${Date.now()}`,
        );
        progress(
          `database-side: ${method}${noDelay ? ' (TCP_NODELAY)' : ''}, groups of ${group}, ${opts.copyRows} rows`,
        );
        if (opts.waitIdleMs > 0) await waitForIdle(opts.waitIdleMs);
        const r = await runInsertMethod(
          url,
          method,
          noDelay,
          group,
          opts.copyRows,
          t0,
          METHOD_BUDGET_MS,
          pgPid,
        );
        methods.push(r);
        progress(
          `  ${fmtInt(r.dbRowsPerSec)} rows/s in the database, ${fmtInt(r.e2eRowsPerSec)} rows/s incl. encoding, p50 ${r.p50GroupMs.toFixed(1)} ms/group, PostgreSQL ${r.pgUsPerRow.toFixed(1)} µs/row, other load ${r.otherCpuPct.toFixed(0)}%`,
        );
        if (r.verifiedRows !== r.rows)
          progress(
            `WARNING: ${method}/${group} wrote ${r.rows} rows but the table holds ${r.verifiedRows}`,
          );
      }
    }
  }

  const copyCeiling = Math.max(
    0,
    ...methods.filter((m) => m.method === 'copy' && m.noDelay).map((m) => m.dbRowsPerSec),
  );
  if (copyCeiling > 0)
    for (const c of cells)
      if (c.backend === 'postgres') c.ratioToCopy = c.spansPerSec / copyCeiling;

  let liveLoad: LiveLoadResult | null = null;
  if (!args['no-live']) {
    // On PostgreSQL when the run has a cluster: PGlite commits in the server's own thread, which
    // would put the database's time into every liveness probe.
    const databaseUrl = cluster
      ? await cluster.createDatabase(`bench_live_${Date.now()}`)
      : undefined;
    progress(
      `live load: one ${databaseUrl ? 'PostgreSQL' : 'PGlite'} server, without and then with live subscribers`,
    );
    liveLoad = await runLiveLoad(
      {
        databaseUrl,
        cpuProfDir: opts.cpuProfDir,
        nodeFlags: opts.serverNodeFlags,
        stallTrace: args['stall-trace'] === true,
        pgPid: databaseUrl ? pgPid : null,
        subscribers: Math.floor(num(args['live-subscribers'], 200, 'live-subscribers', 1)),
        batch: 100,
        concurrency: opts.concurrency,
        warmupMs: opts.warmupMs,
        durationMs: livePhaseMs(),
        probeEveryMs: 20,
        nextSeq,
        t0,
      },
      progress,
    );
  }

  let noisy: NoisyResult | null = null;
  if (!args['no-noisy'] && cluster) {
    const workers = Math.floor(num(args['noisy-workers'], 1, 'noisy-workers', 1));
    if (workers > 1 && redisUrl === undefined) {
      const redis = await startRedis();
      cleanups.push(() => redis.stop());
      redisUrl = redis.url;
    }
    noisy = await runNoisyNeighbour(
      {
        databaseUrl: await cluster.createDatabase(`bench_noisy_${Date.now()}`),
        workers,
        redisUrl,
        nodeFlags: opts.serverNodeFlags,
        phaseMs: num(args['noisy-phase'], quick ? 2 : 10, 'noisy-phase', 1) * 1000,
        warmupMs: quick ? 500 : 2000,
        victimSpansPerSec: 500,
        victimBatch: 50,
        floodBatch: 10_000,
        floodConnections: 3,
        nextSeq,
        t0,
      },
      progress,
    );
  }

  let otelReal: OtelRealResult | null = null;
  if (!args['no-otel-real'] && cluster) {
    if (opts.waitIdleMs > 0) await waitForIdle(opts.waitIdleMs);
    otelReal = await runOtelReal(
      cluster,
      {
        protocols: list(args['otel-protocols'], OTEL_PROTOCOLS, 'otel protocol'),
        concurrency: opts.concurrency,
        batch: 512,
        // Exports of 512 spans take 0.3-5 s to answer (machine's load): a longer window than the cells'.
        warmupMs: args.warmup === undefined ? (quick ? 500 : 2_000) : opts.warmupMs,
        durationMs: args.duration === undefined ? (quick ? 3_000 : 10_000) : opts.durationMs,
        copyGroup: 5_000,
        copyRows: Math.floor(
          num(args['otel-copy-rows'], quick ? 10_000 : 100_000, 'otel-copy-rows', 1),
        ),
        checkpoint: !args['no-otel-checkpoint'],
        nodeFlags: opts.serverNodeFlags,
        cpuProfDir: opts.cpuProfDir,
        serverBin: args['server-bin'] ? resolve(args['server-bin']) : undefined,
        pgDiag: args['otel-pg-diag'] === true || args['otel-pg-set'] !== undefined,
        pgSettings: (args['otel-pg-set'] ?? '')
          .split(';')
          .map((x) => x.trim())
          .filter((x) => x !== ''),
        perfDir: args['otel-perf'] ? resolve(args['otel-perf']) : undefined,
      },
      progress,
    );
  }

  const report = render(cells, backends, methods, encode, copyCeiling, stages);
  // A run of only the noisy-neighbour or otel-real row has no ingest cells to tabulate.
  if (cells.length > 0 || methods.length > 0) process.stdout.write(report);
  if (cells.some((c) => c.workers > 1) || where.length > 0 || skipped.length > 0)
    process.stdout.write(formatScaleReport(cells, where, skipped));
  if (disk.length > 0) process.stdout.write(formatDiskReport(disk));
  if (liveLoad) process.stdout.write(renderLiveLoad(liveLoad));
  if (noisy) process.stdout.write(formatNoisyReport(noisy));
  if (otelReal) process.stdout.write(formatOtelReal(otelReal));
  const results = {
    generatedAt: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      memMb: Math.round(totalmem() / 2 ** 20),
      node: process.version,
    },
    options: { ...opts, out: undefined, cpuProfDir: opts.cpuProfDir ?? null },
    loadAverageAtStart: loadAtStart,
    cells: cells.map((c) => ({
      ...c,
      serverUsPerSpan: round(c.serverUsPerSpan, 1),
      postgresUsPerSpan: round(c.postgresUsPerSpan, 1),
      clientUsPerSpan: round(c.clientUsPerSpan, 1),
      spansPerCommit: round(c.spansPerCommit, 1),
      serverCpuPct: round(c.serverCpuPct),
      serverSysSharePct: round(c.serverSysSharePct),
      otherCpuPct: round(c.otherCpuPct),
      spansPerSec: round(c.spansPerSec),
      p50Ms: round(c.p50Ms, 2),
      p95Ms: round(c.p95Ms, 2),
      p99Ms: round(c.p99Ms, 2),
      peakRssMb: round(c.peakRssMb, 1),
      bodyBytesPerSpan: round(c.bodyBytesPerSpan),
      ratioToCopy: c.ratioToCopy === undefined ? null : round(c.ratioToCopy, 3),
    })),
    backends: backends.map((b) => ({
      ...b,
      peakRssMb: round(b.peakRssMb, 1),
      sampledPeakRssMb: round(b.sampledPeakRssMb, 1),
    })),
    copyCeilingRowsPerSec: copyCeiling ? round(copyCeiling) : null,
    insertMethods: methods.map((m) => ({
      ...m,
      pgUsPerRow: round(m.pgUsPerRow, 1),
      otherCpuPct: round(m.otherCpuPct),
      dbRowsPerSec: round(m.dbRowsPerSec),
      e2eRowsPerSec: round(m.e2eRowsPerSec),
      encodeMsPer1000: Number.isNaN(m.encodeMsPer1000) ? null : round(m.encodeMsPer1000, 2),
      p50GroupMs: round(m.p50GroupMs, 2),
      p95GroupMs: round(m.p95GroupMs, 2),
    })),
    clientEncodeCosts: encode.map((e, i) => ({ group: opts.copyGroups[i], ...e })),
    serverStagesUsPerSpan: stages.map((st) => ({ ...st, usPerSpan: round(st.usPerSpan, 2) })),
    targets: [
      ...targets(cells, backends, copyCeiling),
      ...(liveLoad ? liveTargets(liveLoad) : []),
      ...(noisy ? noisyTargets(noisy) : []),
    ],
    noisyNeighbour: noisy,
    otelReal,
    whereItGoes: where.map((w) => ({
      ...w,
      top: w.top.map((f) => ({ ...f, share: round(f.share, 3) })),
    })),
    skipped,
    disk,
    // Without the probes' answers (hundreds a phase): the percentiles above say what they show.
    liveLoad: liveLoad && {
      ...liveLoad,
      without: { ...liveLoad.without, probes: undefined },
      with: { ...liveLoad.with, probes: undefined },
    },
  };
  let readPath: ReadPathResult | null = null;
  if (!args['no-read']) {
    // The read path (issue: p95 of the query endpoints with 1,000,000 spans in PostgreSQL).
    readPath = await runReadPath(
      {
        spans: quick ? 100_000 : 1_000_000,
        treeSessions: 20,
        requests: quick ? 100 : 200,
        warmup: quick ? 10 : 30,
        concurrency: 4,
        groupSize: 5_000,
        explain: false,
        keep: false,
      },
      progress,
    );
    process.stdout.write(`\n${formatReport(readPath)}`);
  }
  const freshReads: FreshResult[] = [];
  if (!args['no-fresh-reads']) {
    // Reads right after a load, before and after the statistics catch up (issue #28, target 5).
    for (const backend of ['pglite', 'postgres'] as const) {
      progress(`fresh reads on ${backend}`);
      const r = await runReadFresh(
        {
          backend,
          spans: quick ? 20_000 : 100_000,
          treeSessions: quick ? 5 : 20,
          rounds: quick ? 5 : 20,
          waitMs: quick ? 10_000 : 90_000,
          groupSize: 5_000,
        },
        progress,
      );
      freshReads.push(r);
      process.stdout.write(`\n${formatFresh(r)}`);
    }
  }
  let scorecards: ScorecardBenchResult | null = null;
  if (!args['no-scorecards']) {
    // Scorecards of 100 servers with 90 days of 60-second health history, target < 1 s in total.
    scorecards = await runScorecardBench(
      { servers: quick ? 20 : 100, days: quick ? 7 : 90, runs: 5 },
      progress,
    );
    process.stdout.write(`\n${formatScorecardReport(scorecards)}`);
  }
  let scan: ScanBenchResult | null = null;
  if (!args['no-scan']) {
    // One security scan run over 50 in-process streamable-HTTP fixture servers.
    scan = await runScanBench({ servers: quick ? 10 : 50, runs: quick ? 1 : 3 }, progress);
    process.stdout.write(`\n${formatScanReport(scan)}`);
  }
  let sdk: SdkBenchResult | null = null;
  if (!args['no-sdk']) {
    // Guard overhead per wrapped MCP call (target < 50 µs p50) and the SDK's span export rate.
    sdk = await runSdkBench(
      { calls: quick ? 5_000 : 20_000, exportSpans: quick ? 10_000 : 50_000 },
      progress,
    );
    process.stdout.write(`\n${formatSdkReport(sdk)}`);
  }
  let reliability: ReliabilityBenchResult | null = null;
  if (!args['no-reliability']) {
    // SLOs, anomalies and the 30-day cost breakdown over 1,000,000 spans spread over 30 days, each < 500 ms.
    reliability = await runReliabilityBench(
      { spans: quick ? 100_000 : 1_000_000, days: 30, runs: quick ? 3 : 7 },
      progress,
    );
    process.stdout.write(`\n${formatReliabilityReport(reliability)}`);
  }
  const ui = args['no-ui'] ? null : await uiRow();
  writeFileSync(
    opts.out,
    `${JSON.stringify({ ...results, readPath, freshReads, scorecards, scan, sdk, reliability, ui }, null, 2)}\n`,
  );
  progress(`results written to ${opts.out}`);
}

// ---- report ----

interface TargetCheck {
  what: string;
  value: string;
  target: string;
  pass: boolean;
}

function targets(cells: CellRecord[], backends: BackendRecord[], ceiling: number): TargetCheck[] {
  const out: TargetCheck[] = [];
  // The targets were set for one process and the small spans; the other rows are for comparison.
  for (const c of cells.filter((x) => x.workers === 1 && x.profile === 'small')) {
    if (c.backend === 'postgres' && (c.protocol === 'native' || c.protocol === 'otlp-proto')) {
      out.push({
        what: `postgres ${c.protocol} batch ${c.batch}`,
        value: `${fmtInt(c.spansPerSec)} spans/s`,
        target: '≥ 20,000 spans/s',
        pass: c.spansPerSec >= 20_000,
      });
      if (ceiling) {
        out.push({
          what: `postgres ${c.protocol} batch ${c.batch}`,
          value: `${pct(c.spansPerSec / ceiling)} of COPY`,
          target: `≥ 50% of COPY (${fmtInt(ceiling / 2)} spans/s)`,
          pass: c.spansPerSec >= ceiling / 2,
        });
      }
    }
    if (c.backend === 'pglite') {
      out.push({
        what: `pglite ${c.protocol} batch ${c.batch}`,
        value: `${fmtInt(c.spansPerSec)} spans/s`,
        target: '≥ 5,000',
        pass: c.spansPerSec >= 5_000,
      });
    }
  }
  for (const b of backends.filter((x) => x.workers === 1)) {
    out.push({
      what: `${b.backend} peak RSS`,
      value: `${b.peakRssMb.toFixed(0)} MB`,
      target: '< 300 MB',
      pass: b.peakRssMb < 300,
    });
    if (b.firstStart)
      out.push({
        what: `${b.backend} peak RSS, first start (initdb)`,
        value: `${b.firstStart.peakRssMb.toFixed(0)} MB`,
        target: '< 300 MB',
        pass: b.firstStart.peakRssMb < 300,
      });
  }
  return out;
}

function liveTargets(l: LiveLoadResult): TargetCheck[] {
  return [
    {
      what: `live load: throughput with ${l.with.subscribers} subscribers`,
      value: `${pct(l.throughputRatio)} of without`,
      target: '≥ 80%',
      pass: l.throughputRatio >= 0.8,
    },
    {
      what: `live load: liveness p99 with ${l.with.subscribers} subscribers`,
      value: `${l.with.livenessP99Ms.toFixed(1)} ms`,
      target: '< 50 ms',
      pass: l.with.livenessP99Ms < 50,
    },
  ];
}

/** Each live-load phase runs at least 2 s, however short --duration (--quick) makes the cells. */
function livePhaseMs(): number {
  return Math.max(opts.durationMs, 2000);
}

function renderLiveLoad(l: LiveLoadResult): string {
  const lines = [
    '',
    `Live load (${l.backend === 'postgres' ? 'PostgreSQL' : 'PGlite'}, native batches of 100, ${opts.concurrency} in flight; SPYGLASS_RATE_LIMITS=off: the load exceeds any per-client limit):`,
  ];
  lines.push(
    table(
      [
        'live subscribers',
        'spans/s',
        'p99 ms',
        'errors',
        'liveness p99 ms',
        'probes',
        'events delivered',
        'srv µs/span',
        'subscribers CPU s',
        'cores: srv',
        'pg',
        'subs',
        'machine',
      ],
      [l.without, l.with].map((r) => [
        String(r.subscribers),
        fmtInt(r.spansPerSec),
        r.p99Ms.toFixed(1),
        String(r.errors),
        r.livenessP99Ms.toFixed(1),
        String(r.livenessProbes),
        fmtInt(r.eventsDelivered),
        r.serverUsPerSpan.toFixed(1),
        (r.subscribersCpuMs / 1000).toFixed(1),
        r.cores.server.toFixed(2),
        r.cores.postgres.toFixed(2),
        r.cores.subscribers.toFixed(2),
        `${r.cores.machine.toFixed(2)} of ${cpus().length}`,
      ]),
      [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    ),
  );
  lines.push(
    'cores: CPU of the server, PostgreSQL, the subscriber process and the whole machine during the run (1.00 = one core busy throughout).',
  );
  lines.push(
    `subscribers: ${l.mix.sse} SSE (/api/live/events), ${l.mix.graphqlSse} GraphQL over SSE, ${l.mix.graphqlWs} GraphQL over WebSocket, each reading every span:new, in a process of their own;`,
  );
  lines.push(
    `throughput with them: ${pct(l.throughputRatio)} of without (target ≥ 80%); liveness probed every 20 ms on its own connection from a process of its own (target p99 < 50 ms).`,
  );
  for (const t of liveTargets(l))
    lines.push(`${t.pass ? 'PASS' : 'FAIL'}  ${t.what}: ${t.value} (target ${t.target})`);
  const phaseS = livePhaseMs() / 1000;
  if (phaseS < 5)
    lines.push(
      `(phases of ${phaseS} s: a smoke check, too short to judge the targets; judge them with --duration 10 as docs/benchmarks.md does)`,
    );
  for (const r of [l.without, l.with])
    if (r.stalls)
      lines.push(`stall trace, ${renderStalls(`${r.subscribers} subscribers`, r.stalls)}`);
  return `${lines.join('\n')}\n`;
}

function render(
  cells: CellRecord[],
  backends: BackendRecord[],
  methods: MethodResult[],
  encode: ReturnType<typeof encodeCosts>[],
  ceiling: number,
  stages: StageResult[],
): string {
  const lines: string[] = [];
  const cpu = cpus();
  lines.push('');
  lines.push(
    `Spyglass ingest benchmark: ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}${opts.quick ? '  [--quick]' : ''}`,
  );
  if (opts.serverNodeFlags.length > 0 || opts.rateLimits === 'off')
    lines.push(
      `server: ${[...opts.serverNodeFlags, opts.rateLimits === 'off' ? 'SPYGLASS_RATE_LIMITS=off' : ''].filter(Boolean).join(' ')}`,
    );
  lines.push(
    `closed loop, ${opts.concurrency} requests in flight, ${opts.warmupMs / 1000} s warm-up + ${opts.durationMs / 1000} s measured per cell; server, load generator and PostgreSQL share the machine`,
  );
  const busy = cells.filter((c) => c.otherCpuPct > 25);
  if (loadAtStart > cpus().length * 0.5 || busy.length > 0) {
    lines.push(
      `WARNING: the machine was busy with other work (load average ${loadAtStart.toFixed(1)} at start; ${busy.length} cells with other CPU > 25%): throughput figures are lower bounds; µs/span figures are more robust.`,
    );
  }
  lines.push('');
  lines.push(
    table(
      [
        'back end',
        'workers',
        'protocol',
        'batch',
        'profile',
        'B/span',
        'spans/s',
        'req/s',
        'p50 ms',
        'p95 ms',
        'errors',
        'RSS MB',
        'srv µs/span',
        'pg µs/span',
        'pg share',
        'spans/commit',
        'srv CPU',
        'other CPU',
        'vs COPY',
      ],
      cells.map((c) => [
        c.backend,
        String(c.workers),
        c.protocol,
        String(c.batch),
        c.profile,
        fmtInt(c.bodyBytesPerSpan),
        fmtInt(c.spansPerSec),
        fmtInt((c.requests / c.elapsedMs) * 1000),
        c.p50Ms.toFixed(1),
        c.p95Ms.toFixed(1),
        c.errors
          ? `${c.errors} ${Object.entries(c.errorKinds)
              .map(([k, v]) => `${k}×${v}`)
              .join(' ')}`
          : '0',
        c.peakRssMb.toFixed(0),
        fmtInt(c.serverUsPerSpan),
        fmtInt(c.postgresUsPerSpan),
        c.backend === 'postgres'
          ? pct(c.postgresUsPerSpan / (c.postgresUsPerSpan + c.serverUsPerSpan))
          : '',
        fmtInt(c.spansPerCommit),
        pct(c.serverCpuPct / 100),
        pct(c.otherCpuPct / 100),
        c.ratioToCopy === undefined ? '' : pct(c.ratioToCopy),
      ]),
      [0, 1, 0, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1],
    ),
  );
  lines.push(
    "B/span: request body bytes per span sent (profile small: today's spans; genai: ~1 KB spans with ~20 gen_ai.*/mcp.*/",
  );
  lines.push(
    'OpenInference attributes). RSS MB: highest VmRSS of the server (primary + workers, summed) sampled every 100 ms.',
  );
  lines.push(
    'srv/pg µs/span: CPU time of Spyglass (every process: primary and workers) / of the whole PostgreSQL cluster (every',
  );
  lines.push(
    "backend, WAL writer, checkpointer) per acknowledged span (every one is counted stored at the end); pg share: PostgreSQL's",
  );
  lines.push(
    "part of the two. spans/commit: acknowledged spans per write transaction (the writer's mean",
  );
  lines.push(
    'group). srv CPU: Spyglass CPU use, all its processes (100% = one core; each Node main thread caps near 100%). other CPU: busy time of every',
  );
  lines.push('other process on the machine during the cell (should be ~0 for clean figures).');
  lines.push('');
  lines.push(
    table(
      [
        'back end',
        'workers',
        'start-up',
        'idle RSS',
        'peak RSS (VmHWM)',
        'first start (initdb)',
        'spans acknowledged',
        'spans stored',
        'exit',
      ],
      backends.map((b) => [
        b.backend,
        String(b.workers),
        `${(b.startupMs / 1000).toFixed(1)} s`,
        `${b.idleRssMb.toFixed(0)} MB`,
        `${b.peakRssMb.toFixed(0)} MB`,
        b.firstStart
          ? `${(b.firstStart.startupMs / 1000).toFixed(1)} s, peak ${b.firstStart.peakRssMb.toFixed(0)} MB`
          : b.backend === 'pglite'
            ? 'this server (--quick)'
            : '',
        fmtInt(b.ackedSpans),
        b.storedSpans === null ? '?' : fmtInt(b.storedSpans),
        String(b.exitCode),
      ]),
      [0, 1, 1, 1, 1, 1, 1, 1, 1],
    ),
  );
  if (backends.some((b) => b.workers > 1))
    lines.push(
      "With workers, idle RSS and VmHWM are the primary's alone; the RSS column of the cells sums every process.",
    );
  if (methods.length > 0) {
    lines.push('');
    lines.push(
      `Database side (PostgreSQL 15, same cluster, a fresh migrated database with all 6 spans indexes per row; one group per transaction, serial, like the writer):`,
    );
    lines.push(
      table(
        [
          'method',
          'TCP_NODELAY',
          'group',
          'rows',
          'rows/s (db)',
          'rows/s (+encode)',
          'encode ms/1k',
          'p50 ms/group',
          'p95 ms/group',
          'pg µs/row',
          'other CPU',
        ],
        methods.map((m) => [
          m.label,
          m.noDelay ? 'on' : 'off (as server)',
          String(m.group),
          fmtInt(m.rows),
          fmtInt(m.dbRowsPerSec),
          fmtInt(m.e2eRowsPerSec),
          Number.isNaN(m.encodeMsPer1000) ? 'incl.' : m.encodeMsPer1000.toFixed(2),
          m.p50GroupMs.toFixed(1),
          m.p95GroupMs.toFixed(1),
          m.pgUsPerRow.toFixed(1),
          pct(m.otherCpuPct / 100),
        ]),
        [0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1],
      ),
    );
    lines.push(
      `COPY ceiling (best raw COPY, database time only): ${fmtInt(ceiling)} rows/s; 50% of it = ${fmtInt(ceiling / 2)} spans/s.`,
    );
    lines.push(
      'pg µs/row: CPU of the whole PostgreSQL cluster per row (WAL writer and checkpointer included); robust to other load.',
    );
    if (encode.length > 0) {
      lines.push(
        `Client-side encoding per 1,000 rows: ${encode.map((e, i) => `group ${opts.copyGroups[i]}: JSON.stringify ${e.jsonStringifyMsPer1000.toFixed(2)} ms, COPY text ${e.copyTextMsPer1000.toFixed(2)} ms`).join('; ')}`,
      );
    }
  }
  if (stages.length > 0) {
    lines.push('');
    lines.push(
      'Server-side stages measured in-process on the same bodies (no HTTP, no database), µs per span:',
    );
    const names = [...new Set(stages.map((st) => st.stage))];
    lines.push(
      table(
        ['stage', ...opts.batches.map((b) => `batch ${b}`)],
        names.map((n) => [
          n,
          ...opts.batches.map(
            (b) =>
              stages.find((st) => st.stage === n && st.batch === b)?.usPerSpan.toFixed(2) ?? '',
          ),
        ]),
        [0, ...opts.batches.map(() => 1)],
      ),
    );
  }
  const checks = targets(cells, backends, ceiling);
  if (checks.length > 0) {
    lines.push('');
    lines.push('Targets:');
    lines.push(
      table(
        ['', 'measured', 'target', ''],
        checks.map((t) => [t.what, t.value, t.target, t.pass ? 'PASS' : 'FAIL']),
        [0, 1, 0, 0],
      ),
    );
  }
  lines.push('');
  return lines.join('\n');
}

function table(head: string[], rows: string[][], alignRight: number[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (r: string[]) =>
    r
      .map((v, i) =>
        alignRight[i] ? v.padStart(widths[i] as number) : v.padEnd(widths[i] as number),
      )
      .join('  ')
      .trimEnd();
  return [fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmt)].join('\n');
}

const fmtInt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
const pct = (r: number) => `${(r * 100).toFixed(0)}%`;
const round = (n: number, digits = 0) =>
  Number.isFinite(n) ? Math.round(n * 10 ** digits) / 10 ** digits : null;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (bounded) until the rest of the machine is quiet: other processes below 25% of one core over 500 ms. */
async function waitForIdle(maxMs: number): Promise<void> {
  const until = performance.now() + maxMs;
  let other = 0;
  while (performance.now() < until) {
    const a = machineBusyMs();
    await sleep(500);
    other = ((machineBusyMs() - a) / 500) * 100;
    if (other < 25) return;
  }
  progress(
    `machine still busy (${other.toFixed(0)}% of a core used by other processes) after waiting ${(maxMs / 1000).toFixed(0)} s; measuring anyway`,
  );
}

/** CLOCK_MONOTONIC in µs, the clock V8 stamps CPU profile samples with. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * Waits (bounded) until the server has `n` worker processes and they have finished starting;
 * false when it never forks them. Readiness answers as soon as one worker listens, and a worker
 * still compiling modules would put its start-up into the first cell's CPU per span: so also wait
 * (at most 20 s) until the workers together use under 30% of a core over half a second.
 */
async function waitForWorkers(pid: number, n: number): Promise<boolean> {
  const until = performance.now() + 15_000;
  let pids: number[] = [];
  while (performance.now() < until && pids.length < n) {
    pids = childPids(pid);
    if (pids.length < n) await sleep(250);
  }
  if (pids.length < n) return false;
  const cpu = () => pids.reduce((a, p) => a + processCpuMs(p), 0);
  const settleBy = performance.now() + 20_000;
  while (performance.now() < settleBy) {
    const before = cpu();
    await sleep(500);
    if (cpu() - before < 150) break;
  }
  return true;
}

/** The next transaction id to be assigned in the cluster (reading it assigns none). */
async function nextXid(sql: postgres.Sql): Promise<number> {
  const [row] =
    (await sql`select pg_snapshot_xmax(pg_current_snapshot())::text::bigint as x`) as unknown as [
      { x: string },
    ];
  return Number(row.x);
}

async function countRows(url: string): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = (await sql`select count(*)::int as n from spans`) as unknown as [{ n: number }];
    return row.n;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function countPgliteRows(dir: string): Promise<number> {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(dir);
  try {
    const res = await db.query<{ n: number }>('select count(*)::int as n from spans');
    return res.rows[0]?.n ?? 0;
  } finally {
    await db.close();
  }
}

try {
  await main();
} catch (err) {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
