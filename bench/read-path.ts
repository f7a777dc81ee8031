/**
 * Read-path benchmark: latency of the read endpoints of a real Spyglass server (in-process, over
 * HTTP on 127.0.0.1) with N spans loaded into its store (PostgreSQL, or PGlite with --backend
 * pglite) through the ingest path (insertSpans, counted as ingest), so the session, per-tool and
 * hourly-lineage rollups and the planner statistics are the ones the server maintains: the bench
 * never runs ANALYZE itself.
 *
 *   node --import tsx bench/read-path.ts                     1,000,000 spans (load takes a few minutes)
 *   node --import tsx bench/read-path.ts --quick             100,000 spans
 *   node --import tsx bench/read-path.ts --backend pglite    the embedded database
 *   node --import tsx bench/read-path.ts --json out.json --explain
 *   node --import tsx bench/read-path.ts --keep              leave the cluster running afterwards (psql)
 *   node --import tsx bench/read-path.ts --database-url URL  measure an already loaded database
 *   node --import tsx bench/read-path.ts --data-dir DIR      load into a cluster kept in DIR the first
 *                                                             time; later runs only start it and read
 *   node --import tsx bench/read-path.ts --fresh --backend pglite   reads right after a 100,000-span load
 *                                                             and 90 s later (bench/read-fresh.ts)
 *   node --import tsx bench/read-path.ts --help
 *
 * Measured (sequential requests after a warm-up, targets varied across requests; then the same at
 * concurrency 4): sessions list (default 24 h window, limit 50; project-scoped; by agent; next page
 * via the cursor), the tree of a 200-span session, lineage over 24 h, spans by trace. Target: p95
 * < 50 ms per endpoint (sequential). Table on stdout, progress on stderr, JSON with --json.
 * `runReadPath` is exported for bench/run.ts.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import type { Sql } from 'postgres';
import { execute, type Db } from '../src/store/db.ts';
import { startPgCluster, type PgCluster } from '../test/helpers/pg-cluster.ts';
import {
  buildCases,
  get,
  startBenchServer,
  stats,
  walkCursors,
  type Case,
  type LatencyStats,
  type Log,
  type Target,
  type Targets,
} from './read-cases.ts';
import { loadNoted, type DataInfo } from './read-data.ts';
import { explainReadQueries, type ExplainResult } from './read-explain.ts';
import { startKeptCluster } from './kept-cluster.ts';
import { pgCpuSampler, type PgCpu } from './read-pg-cpu.ts';

/** The file --data-dir writes into the data directory once its load has finished. */
const LOADED_MARK = 'spyglass-read-bench-loaded';

export const TARGET_P95_MS = 50;

export interface ReadPathOptions {
  /** Default postgres. */
  backend?: 'postgres' | 'pglite' | undefined;
  spans: number;
  /** Sessions of exactly 200 spans to load (tree targets). */
  treeSessions: number;
  /** Measured requests per endpoint (sequential, and again at `concurrency`). */
  requests: number;
  warmup: number;
  /** 0 or 1 = skip the concurrent pass. */
  concurrency: number;
  groupSize: number;
  /** An already loaded PostgreSQL database: skip the cluster and the load. */
  databaseUrl?: string | undefined;
  /**
   * A PostgreSQL data directory kept between runs: created and loaded when absent, else started
   * and only read (the server then starts in a process that did no load).
   */
  dataDir?: string | undefined;
  /**
   * With a loaded --data-dir: spans loaded into the hour before now before the reads, so the
   * window's current hour holds what it would after a load (0: none).
   */
  topUp?: number | undefined;
  explain: boolean;
  /** Leave the cluster running (and print how to reach it) until Ctrl-C. */
  keep: boolean;
  /**
   * PostgreSQL (a cluster the bench starts): each request's CPU in the database's backends, from
   * /proc (bench/read-pg-cpu.ts), beside its wall time: the database's work, whatever the CPU queue.
   */
  pgCpu?: boolean | undefined;
}

export interface EndpointResult {
  name: string;
  /** Counted in the verdict (the issue's endpoints); false = extra, shown for information. */
  target: boolean;
  /** A representative request (the first target). */
  example: string;
  sequential: LatencyStats & { pass: boolean };
  concurrent?: (LatencyStats & { concurrency: number; reqPerSec: number }) | undefined;
  /** Bytes of the first response, and what it held (sessions, spans, nodes…). */
  responseBytes: number;
  responseItems: number;
  /** The case's first request (its first target, before any warm-up), ms: the cold read. */
  firstMs: number;
  /**
   * --pg-cpu: the database backends' CPU per request, ms: the measured requests' distribution, and
   * the sum over the case's warm-up requests (its first requests, where each connection's first
   * reads of a statement land).
   */
  pgCpu?:
    | {
        p50: number;
        p95: number;
        max: number;
        mean: number;
        warmupSumMs: number;
        /** Each measured request's, in order (--json). */
        perRequest: number[];
      }
    | undefined;
}

export interface ReadPathResult {
  backend: 'postgres' | 'pglite';
  startedAt: string;
  machine: { cpus: number; cpuModel: string; memGb: number; node: string };
  loadavg: { start: number[]; afterLoad: number[] | null; end: number[] };
  data: {
    spans: number;
    sessions: number;
    sessionsByProject: Record<string, number>;
    lineageRows: number;
    sessionToolRows: number;
    tableMb: Record<string, number>;
  };
  load: { ms: number; spansPerSec: number; groupSize: number } | null;
  /** ANALYZE run by the server's statistics keeper (during the load and at start); none by the bench. */
  statistics: { analyzes: number; totalMs: number; maxMs: number; waitAfterLoadMs: number };
  target: { p95Ms: number };
  endpoints: EndpointResult[];
  explain?: ExplainResult[] | undefined;
  /**
   * --pg-cpu: the database backends' CPU from the server's start to the first case, ms (the
   * statistics wait, the bench's own counts, and the server's start-up work), and the backends
   * open then.
   */
  pgCpuBeforeCases?: { ms: number; backends: number } | undefined;
  pass: boolean;
}

/** Starts a cluster (unless given a URL), loads, measures, cleans up. */
export async function runReadPath(
  opts: ReadPathOptions,
  log: Log,
  signal?: AbortSignal,
  /** Called with the results before `keep` waits (so they are printed while the cluster stays up). */
  onResult?: (r: ReadPathResult) => void,
): Promise<ReadPathResult> {
  // Undone in reverse order on every exit path (success, error, abort by Ctrl-C).
  const cleanups: (() => Promise<unknown>)[] = [];
  const cleanup = async () => {
    for (const fn of cleanups.splice(0).reverse())
      await fn().catch((err: unknown) => log(`cleanup: ${(err as Error).message}`));
  };
  const startLoad = loadavg();
  const startedAt = new Date().toISOString();
  const backend = opts.backend ?? 'postgres';
  let keptMark: string | null = null;
  try {
    let url = opts.databaseUrl;
    let pgDataDir: string | null = null;
    let cluster: PgCluster | null = null;
    let loaded = url !== undefined;
    // PGlite kept in --data-dir: loaded the first time, later runs only read. A run reads the
    // directory it is given and writes to it (statistics, the server's upkeep): give each run a
    // copy (`cp -a`) for runs that compare.
    let pgliteDir: string | undefined;
    if (backend === 'pglite' && opts.dataDir) {
      mkdirSync(opts.dataDir, { recursive: true });
      pgliteDir = opts.dataDir;
      const mark = join(opts.dataDir, LOADED_MARK);
      loaded = existsSync(mark);
      if (!loaded && readdirSync(opts.dataDir).length > 0)
        throw new Error(
          `${opts.dataDir} holds no finished load (${LOADED_MARK} absent): remove it`,
        );
      log(
        `PGlite kept in ${opts.dataDir} (${loaded ? `loaded: ${readFileSync(mark, 'utf8').trim()}` : 'new: loading'})`,
      );
      keptMark = loaded ? null : mark;
    }
    if (backend === 'postgres' && !url && opts.dataDir) {
      const kept = await startKeptCluster(opts.dataDir, 'spyglass_read_bench');
      cleanups.push(() => kept.stop());
      url = kept.url;
      pgDataDir = kept.dataDir;
      const mark = join(kept.dataDir, LOADED_MARK);
      if (kept.existed && !existsSync(mark))
        throw new Error(
          `${kept.dataDir} holds no finished load (${LOADED_MARK} absent): remove it`,
        );
      loaded = kept.existed;
      log(
        `cluster kept in ${kept.dataDir} (${loaded ? `loaded: ${readFileSync(mark, 'utf8').trim()}` : 'new: loading'})`,
      );
      keptMark = loaded ? null : mark;
    } else if (backend === 'postgres' && !url) {
      log('starting PostgreSQL cluster…');
      cluster = await startPgCluster();
      const c = cluster;
      cleanups.push(() => c.stop());
      url = await cluster.createDatabase('spyglass_read_bench');
      pgDataDir = cluster.dataDir;
      log(`cluster on 127.0.0.1:${cluster.port}, data ${cluster.dataDir}`);
    }
    signal?.throwIfAborted();

    let load: ReadPathResult['load'] = null;
    let info: DataInfo | null = null;
    let afterLoad: number[] | null = null;
    const pgCpu = opts.pgCpu && pgDataDir ? pgCpuSampler(pgDataDir, 'spyglass_read_bench') : null;
    if (opts.pgCpu && !pgCpu) log('--pg-cpu: no cluster of this run to read from /proc; left out');
    {
      const cpuAtStart = pgCpu?.sampleMs() ?? 0;
      // The server runs during the load, as in production: its statistics keeper sees the spans
      // written and analyzes when it decides to.
      const server = await startBenchServer(
        backend === 'postgres' ? url : undefined,
        cleanups,
        pgliteDir,
      );
      log(`server on ${server.httpUrl} (${backend})`);
      const db = server.services.store.db;
      if (!loaded) {
        log(
          `loading ${opts.spans.toLocaleString('en-US')} spans through insertSpans in groups of ${opts.groupSize}…`,
        );
        let lastLog = 0;
        const loaded = await loadNoted(
          server.services.stats,
          db,
          {
            spans: opts.spans,
            treeSessions: opts.treeSessions,
            end: new Date(),
            groupSize: opts.groupSize,
          },
          signal,
          ({ spans, elapsedMs }) => {
            if (elapsedMs - lastLog < 5000 && spans < opts.spans) return;
            lastLog = elapsedMs;
            const la = loadavg()[0]?.toFixed(2);
            log(
              `  ${spans.toLocaleString('en-US').padStart(9)} spans  ${(elapsedMs / 1000).toFixed(1).padStart(6)} s  ${Math.round(
                spans / (elapsedMs / 1000),
              )
                .toLocaleString('en-US')
                .padStart(7)} spans/s  (load avg ${la})`,
            );
          },
        );
        info = loaded.info;
        load = {
          ms: Math.round(loaded.loadMs),
          spansPerSec: Math.round(opts.spans / (loaded.loadMs / 1000)),
          groupSize: opts.groupSize,
        };
        afterLoad = loadavg();
        if (keptMark)
          writeFileSync(keptMark, `${opts.spans} spans, ${opts.treeSessions} tree sessions\n`);
        log(
          `loaded ${info.spans.toLocaleString('en-US')} spans (${info.sessions.toLocaleString('en-US')} sessions) in ${(loaded.loadMs / 1000).toFixed(1)} s = ${load.spansPerSec.toLocaleString('en-US')} spans/s`,
        );
      }
      if (loaded && (opts.topUp ?? 0) > 0) {
        const top = await loadNoted(server.services.stats, db, {
          spans: opts.topUp as number,
          treeSessions: 0,
          end: new Date(),
          hours: 1,
          seed: Date.now() % 1_000_000_007,
          groupSize: opts.groupSize,
        });
        log(
          `topped up: ${(opts.topUp as number).toLocaleString('en-US')} spans in the last hour in ${(top.loadMs / 1000).toFixed(1)} s`,
        );
      }
      // No ANALYZE here: only what the server's keeper did (it analyzes a table it finds without
      // statistics at start, so a preloaded database has them too once this resolves).
      const waitStart = performance.now();
      for (const table of [
        'spans',
        'sessions',
        'session_tools',
        'lineage_hourly',
        'lineage_blocks',
      ] as const)
        await server.services.stats.hasStatistics(table);
      const a = server.services.stats.analyses;
      const statistics = {
        analyzes: a.count,
        totalMs: Math.round(a.totalMs),
        maxMs: Math.round(a.maxMs),
        waitAfterLoadMs: Math.round(performance.now() - waitStart),
      };
      log(
        `statistics: the server ran ANALYZE ${statistics.analyzes} times, ${statistics.totalMs} ms in all, longest ${statistics.maxMs} ms; the bench ran none`,
      );
      const data = await describeData(db);
      const targets = await pickTargets(db);
      log(
        `data: ${data.spans.toLocaleString('en-US')} spans, ${data.sessions.toLocaleString('en-US')} sessions, ${data.lineageRows} lineage rows; tables ${Object.entries(
          data.tableMb,
        )
          .map(([k, v]) => `${k} ${v} MB`)
          .join(', ')}`,
      );
      if (targets.treeSessions.length === 0) throw new Error('no 200-span session in the database');
      if (targets.traces.length === 0) throw new Error('no typical session trace in the database');
      signal?.throwIfAborted();

      const cursors = await walkCursors(server.httpUrl, 'limit=50', 21);
      const cases = buildCases(targets, cursors);
      const pgCpuBeforeCases = pgCpu
        ? { ms: Math.round(pgCpu.sampleMs() - cpuAtStart), backends: pgCpu.backends() }
        : undefined;
      if (pgCpuBeforeCases)
        log(
          `database CPU from the server's start to the first case: ${pgCpuBeforeCases.ms} ms, ${pgCpuBeforeCases.backends} backends open`,
        );
      const endpoints: EndpointResult[] = [];
      for (const c of cases) {
        signal?.throwIfAborted();
        endpoints.push(await measureCase(server.httpUrl, c, opts, log, signal, pgCpu));
      }
      let explain: ExplainResult[] | undefined;
      if (opts.explain) {
        log('EXPLAIN (ANALYZE, BUFFERS) of the queries behind each endpoint…');
        const on =
          backend === 'postgres'
            ? { url: url as string }
            : { client: (db as unknown as { $client: Sql }).$client };
        explain = await explainReadQueries(on, {
          treeSession: targets.treeSessions[0] as Target,
          trace: targets.traces[0] as Target,
          agent: targets.agents[0] as string,
          cursor: cursors[0],
        });
      }
      await server.stop();
      const at = cleanups.indexOf(server.stop);
      if (at >= 0) cleanups.splice(at, 1);

      const result: ReadPathResult = {
        backend,
        startedAt,
        machine: {
          cpus: cpus().length,
          cpuModel: cpus()[0]?.model ?? '?',
          memGb: Math.round(totalmem() / 2 ** 30),
          node: process.version,
        },
        loadavg: {
          start: round2(startLoad),
          afterLoad: afterLoad && round2(afterLoad),
          end: round2(loadavg()),
        },
        data: info ? { ...data, sessionsByProject: info.sessionsByProject } : data,
        load,
        statistics,
        target: { p95Ms: TARGET_P95_MS },
        endpoints,
        explain,
        pgCpuBeforeCases,
        pass: endpoints.every((e) => !e.target || e.sequential.pass),
      };
      onResult?.(result);
      if (opts.keep && cluster) {
        log(`--keep: cluster left running; psql "${url}"  (Ctrl-C stops and removes it)`);
        // The timer keeps the event loop alive: a bare pending promise would let Node exit here
        // without cleaning up.
        const keepAlive = setInterval(() => {}, 60_000);
        try {
          await new Promise<void>((res) => {
            if (!signal || signal.aborted) return res();
            signal.addEventListener('abort', () => res(), { once: true });
          });
        } finally {
          clearInterval(keepAlive);
        }
      }
      return result;
    }
  } finally {
    await cleanup();
  }
}

export async function pickTargets(db: Db): Promise<Targets> {
  const tree = await execute<{ p: string; s: string; n: number }>(
    db,
    sql`select project_id as p, session_id as s, span_count as n from sessions where span_count = 200 order by last_call_at desc limit 20`,
  );
  // Typical sessions (5-50 spans) spread over the day; each one's trace id.
  const traces = await execute<{ p: string; t: string; n: number }>(
    db,
    sql`select s.project_id as p, x.trace_id as t, s.span_count as n
        from (select project_id, session_id, span_count from sessions
              where span_count between 5 and 50 and last_call_at > now() - interval '24 hours'
              order by hashtext(session_id) limit 200) s
        cross join lateral (select trace_id from spans sp
                            where sp.project_id = s.project_id and (sp.session_id = s.session_id or (sp.session_id is null and sp.trace_id = s.session_id))
                              and sp.trace_id is not null limit 1) x`,
  );
  const agents = await execute<{ a: string }>(
    db,
    sql`select distinct agent_name as a from sessions where agent_name is not null order by 1`,
  );
  const projects = await execute<{ p: string }>(
    db,
    sql`select distinct project_id as p from sessions order by 1`,
  );
  return {
    treeSessions: tree.rows.map((r) => ({ projectId: r.p, id: r.s, spans: Number(r.n) })),
    traces: traces.rows.map((r) => ({ projectId: r.p, id: r.t, spans: Number(r.n) })),
    agents: agents.rows.map((r) => r.a),
    projects: projects.rows.map((r) => r.p),
  };
}

async function describeData(
  db: Db,
): Promise<
  Omit<ReadPathResult['data'], 'sessionsByProject'> & { sessionsByProject: Record<string, number> }
> {
  const counts = await execute<{ spans: string; sessions: string; lineage: string; tools: string }>(
    db,
    sql`select (select count(*) from spans) as spans, (select count(*) from sessions) as sessions,
               (select count(*) from lineage_hourly) as lineage, (select count(*) from session_tools) as tools`,
  );
  const byProject = await execute<{ p: string; n: string }>(
    db,
    sql`select project_id as p, count(*) as n from sessions group by 1 order by 1`,
  );
  const sizes = await execute<{ t: string; mb: string }>(
    db,
    sql`select c.relname as t, round(pg_total_relation_size(c.oid) / 1048576.0) as mb
        from pg_class c where c.relname in ('spans', 'sessions', 'session_tools', 'lineage_hourly') order by 1`,
  );
  const c = counts.rows[0];
  return {
    spans: Number(c?.spans ?? 0),
    sessions: Number(c?.sessions ?? 0),
    sessionsByProject: Object.fromEntries(byProject.rows.map((r) => [r.p, Number(r.n)])),
    lineageRows: Number(c?.lineage ?? 0),
    sessionToolRows: Number(c?.tools ?? 0),
    tableMb: Object.fromEntries(sizes.rows.map((r) => [r.t, Number(r.mb)])),
  };
}

async function measureCase(
  base: string,
  c: Case,
  opts: ReadPathOptions,
  log: Log,
  signal?: AbortSignal,
  pgCpu?: PgCpu | null,
): Promise<EndpointResult> {
  // Each request's database CPU (--pg-cpu): sampled around it, outside its timed part.
  let warmupCpu = 0;
  const cpuOf: number[] = [];
  const timed = async (path: string, warm: boolean) => {
    const before = pgCpu?.sampleMs() ?? 0;
    const r = await get(base, path, signal);
    if (pgCpu) {
      const ms = pgCpu.sampleMs() - before;
      if (warm) warmupCpu += ms;
      else cpuOf.push(ms);
    }
    return r;
  };
  // Warm-up, with a check of every target's first response.
  const first = await timed(c.paths[0] as string, true);
  if (first.status !== 200)
    throw new Error(
      `${c.name}: GET ${c.paths[0]} returned ${first.status}: ${first.body.slice(0, 300)}`,
    );
  const items = c.count(JSON.parse(first.body));
  for (let i = 0; i < Math.max(opts.warmup, Math.min(c.paths.length, 200)); i++) {
    const k = i % c.paths.length;
    const r = await timed(c.paths[k] as string, true);
    if (r.status !== 200)
      throw new Error(`${c.name}: GET ${c.paths[k]} returned ${r.status}: ${r.body.slice(0, 300)}`);
    if (i < c.paths.length) {
      // Every target's response is checked once: not empty, and the expected size when known.
      const want = c.expect?.(k);
      const got = c.count(JSON.parse(r.body));
      if (got < 1 || (want !== undefined && got !== want))
        throw new Error(
          `${c.name}: GET ${c.paths[k]} held ${got} items, expected ${want ?? 'some'}`,
        );
    }
  }
  const seq: number[] = [];
  for (let i = 0; i < opts.requests; i++) {
    const r = await timed(c.paths[i % c.paths.length] as string, false);
    if (r.status !== 200) throw new Error(`${c.name}: status ${r.status}`);
    seq.push(r.ms);
  }
  const s = stats(seq);
  let concurrent: EndpointResult['concurrent'];
  if (opts.concurrency > 1) {
    const lat: number[] = [];
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: opts.concurrency }, async () => {
        for (let i = next++; i < opts.requests; i = next++) {
          const r = await get(base, c.paths[(i * 7) % c.paths.length] as string, signal);
          if (r.status !== 200) throw new Error(`${c.name}: status ${r.status}`);
          lat.push(r.ms);
        }
      }),
    );
    const wall = performance.now() - t0;
    concurrent = {
      ...stats(lat),
      concurrency: opts.concurrency,
      reqPerSec: Math.round((opts.requests / wall) * 1000),
    };
  }
  const target = c.target ?? true;
  const pass = s.p95 < TARGET_P95_MS;
  const cpu = pgCpu ? stats(cpuOf) : null;
  const pgCpuResult = cpu
    ? {
        p50: cpu.p50,
        p95: cpu.p95,
        max: cpu.max,
        mean: cpu.mean,
        warmupSumMs: round1(warmupCpu),
        perRequest: cpuOf.map(round1),
      }
    : undefined;
  log(
    `  ${c.name.padEnd(48)} first ${fmt(first.ms)}  p50 ${fmt(s.p50)}  p95 ${fmt(s.p95)}  p99 ${fmt(s.p99)} ms${cpu ? `  | db CPU p50 ${fmt(cpu.p50)} p95 ${fmt(cpu.p95)} max ${fmt(cpu.max)} ms, warm-up ${fmt(warmupCpu)} ms` : ''}${concurrent ? `  | c=${concurrent.concurrency} p50 ${fmt(concurrent.p50)} p95 ${fmt(concurrent.p95)} ms, ${concurrent.reqPerSec} req/s` : ''}  ${pass ? 'ok' : 'OVER'}${target ? '' : ' (extra)'}`,
  );
  return {
    name: c.name,
    target,
    example: c.paths[0] as string,
    sequential: { ...s, pass },
    concurrent,
    responseBytes: first.bytes.length,
    firstMs: round1(first.ms),
    responseItems: items,
    pgCpu: pgCpuResult,
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

const clip = (s: string, max = 600) =>
  s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
const fmt = (n: number) => n.toFixed(1).padStart(6);
const round2 = (xs: number[]) => xs.map((x) => Math.round(x * 100) / 100);

/** The readable table (stdout). */
export function formatReport(r: ReadPathResult): string {
  const lines: string[] = [];
  lines.push(
    `Read path: ${r.data.spans.toLocaleString('en-US')} spans, ${r.data.sessions.toLocaleString('en-US')} sessions (${Object.entries(
      r.data.sessionsByProject,
    )
      .map(([p, n]) => `${p} ${n.toLocaleString('en-US')}`)
      .join(
        ', ',
      )}), ${r.data.lineageRows.toLocaleString('en-US')} lineage rows, ${r.backend === 'pglite' ? 'PGlite' : 'PostgreSQL'}`,
  );
  lines.push(
    `tables: ${Object.entries(r.data.tableMb)
      .map(([k, v]) => `${k} ${v} MB`)
      .join(', ')}`,
  );
  if (r.load)
    lines.push(
      `load: ${(r.load.ms / 1000).toFixed(1)} s through insertSpans (groups of ${r.load.groupSize}) = ${r.load.spansPerSec.toLocaleString('en-US')} spans/s`,
    );
  lines.push(
    `statistics: ANALYZE by the server's keeper only: ${r.statistics.analyzes} runs, ${r.statistics.totalMs} ms in all, longest ${r.statistics.maxMs} ms; ${r.statistics.waitAfterLoadMs} ms waited after the load`,
  );
  lines.push(
    `machine: ${r.machine.cpus} CPUs (${r.machine.cpuModel}), ${r.machine.memGb} GB, node ${r.machine.node}; load avg start ${r.loadavg.start.join(' ')}${r.loadavg.afterLoad ? `, after load ${r.loadavg.afterLoad.join(' ')}` : ''}, end ${r.loadavg.end.join(' ')}`,
  );
  const conc = r.endpoints.find((e) => e.concurrent)?.concurrent?.concurrency;
  const cpuCols = r.endpoints.some((e) => e.pgCpu);
  const n = r.endpoints[0]?.sequential.n ?? 0;
  lines.push('');
  const head = [
    'endpoint',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    `p95 < ${r.target.p95Ms} ms`,
    ...(conc ? [`c=${conc} p50`, `c=${conc} p95`, 'req/s'] : []),
    ...(cpuCols ? ['db CPU p50', 'p95', 'max', 'warm-up Σ'] : []),
    'items',
    'bytes',
  ];
  const rows = r.endpoints.map((e) => [
    e.name,
    e.sequential.p50.toFixed(1),
    e.sequential.p95.toFixed(1),
    e.sequential.p99.toFixed(1),
    e.target ? (e.sequential.pass ? 'pass' : 'FAIL') : e.sequential.pass ? '(under)' : '(over)',
    ...(conc
      ? [
          e.concurrent?.p50.toFixed(1) ?? '',
          e.concurrent?.p95.toFixed(1) ?? '',
          String(e.concurrent?.reqPerSec ?? ''),
        ]
      : []),
    ...(cpuCols
      ? [
          e.pgCpu?.p50.toFixed(2) ?? '',
          e.pgCpu?.p95.toFixed(2) ?? '',
          e.pgCpu?.max.toFixed(1) ?? '',
          e.pgCpu?.warmupSumMs.toFixed(1) ?? '',
        ]
      : []),
    String(e.responseItems),
    String(e.responseBytes),
  ]);
  const widths = head.map((h, i) =>
    Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
      .join('  ');
  lines.push(line(head));
  lines.push(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) lines.push(line(row));
  lines.push('');
  lines.push(
    `${n} sequential requests per endpoint after a warm-up${conc ? `, then ${n} at concurrency ${conc}` : ''}; latency = HTTP request to last body byte (not decoded to text), client in the same process as the server.`,
  );
  if (cpuCols)
    lines.push(
      `db CPU: the database backends' CPU per measured request, ms (/proc schedstat); warm-up Σ: summed over the case's warm-up requests${r.pgCpuBeforeCases ? `; ${r.pgCpuBeforeCases.ms} ms from the server's start to the first case, ${r.pgCpuBeforeCases.backends} backends open then` : ''}.`,
    );
  lines.push(
    `overall: ${r.pass ? 'PASS' : 'FAIL'} (target p95 < ${r.target.p95Ms} ms for every endpoint of the issue, sequential; rows marked (extra) are informational)`,
  );
  if (r.explain) {
    lines.push('');
    for (const e of r.explain) {
      lines.push(
        `-- ${e.name}: execution ${e.executionMs.toFixed(2)} ms, planning ${e.planningMs.toFixed(2)} ms`,
      );
      lines.push(e.sql.replace(/\s+/g, ' ').trim());
      lines.push(`params: ${JSON.stringify(e.params)}`);
      lines.push(e.plan);
      lines.push('');
    }
  }
  return lines.join('\n');
}

const USAGE = `usage: node --import tsx bench/read-path.ts [options]
  --backend B           postgres (default) or pglite
  --spans N             spans to load (default 1000000)
  --quick               100000 spans, 100 requests per endpoint
  --requests N          measured requests per endpoint (default 200; quick 100)
  --warmup N            warm-up requests per endpoint (default 30)
  --concurrency N       second pass at N requests in flight (default 4; 0 = skip)
  --tree-sessions N     200-span sessions to load (default 20)
  --group-size N        spans per insertSpans call (default 5000)
  --database-url URL    measure an already loaded database (skips cluster and load)
  --data-dir DIR        PostgreSQL cluster kept in DIR: created and loaded the first time, later runs
                        start it and only read (the server in a process that did no load); stopped at
                        the end of each run, removed only by hand. With --backend pglite the same for
                        PGlite's data directory (runs write to it: compare on copies, cp -a)
  --top-up N            with a loaded --data-dir: N spans more in the hour before now, loaded before the
                        reads (a kept directory's current hour is empty once its load is an hour old;
                        1,000,000 spans over 24 h put about 42,000 in each hour)
  --pg-cpu              PostgreSQL started by the bench (--data-dir or its own cluster): each request's
                        CPU in the database's backends (/proc), per endpoint beside the wall times
  --explain             print EXPLAIN (ANALYZE, BUFFERS) of the SQL behind each endpoint
  --keep                leave the cluster running afterwards until Ctrl-C
  --json FILE           write the results as JSON
  --fresh               fresh reads instead (default 100000 spans): every endpoint right after the load and
                        again --wait seconds later, their p50 ratio (target ≤ 1.5×) and EXPLAIN at both moments
  --wait SECONDS        with --fresh: from the last span to the second measurement (default 90)
  --rounds N            with --fresh: requests per endpoint at each moment, in rounds (default 20)`;

async function main(): Promise<void> {
  let values;
  try {
    values = parseArgs({
      options: {
        backend: { type: 'string' },
        spans: { type: 'string' },
        quick: { type: 'boolean', default: false },
        requests: { type: 'string' },
        warmup: { type: 'string' },
        concurrency: { type: 'string' },
        'tree-sessions': { type: 'string' },
        'group-size': { type: 'string' },
        'database-url': { type: 'string' },
        'data-dir': { type: 'string' },
        'top-up': { type: 'string' },
        explain: { type: 'boolean', default: false },
        'pg-cpu': { type: 'boolean', default: false },
        keep: { type: 'boolean', default: false },
        json: { type: 'string' },
        fresh: { type: 'boolean', default: false },
        wait: { type: 'string' },
        rounds: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const int = (name: string, raw: string | undefined, fallback: number, min: number) => {
    if (raw === undefined) return fallback;
    const n = Number(raw.replace(/[_,]/g, ''));
    if (!Number.isInteger(n) || n < min) {
      process.stderr.write(`--${name} must be an integer ≥ ${min}\n${USAGE}\n`);
      process.exit(2);
    }
    return n;
  };
  if (
    values.backend !== undefined &&
    values.backend !== 'postgres' &&
    values.backend !== 'pglite'
  ) {
    process.stderr.write(`--backend must be postgres or pglite\n${USAGE}\n`);
    process.exit(2);
  }
  if (values.backend === 'pglite' && (values['database-url'] || values.keep)) {
    process.stderr.write('--database-url and --keep need --backend postgres\n');
    process.exit(2);
  }
  const opts: ReadPathOptions = {
    backend: values.backend as ReadPathOptions['backend'],
    spans: int('spans', values.spans, values.quick ? 100_000 : 1_000_000, 1000),
    treeSessions: int('tree-sessions', values['tree-sessions'], 20, 1),
    requests: int('requests', values.requests, values.quick ? 100 : 200, 1),
    warmup: int('warmup', values.warmup, 30, 0),
    concurrency: int('concurrency', values.concurrency, 4, 0),
    groupSize: int('group-size', values['group-size'], 5000, 1),
    databaseUrl: values['database-url'],
    dataDir: values['data-dir'],
    explain: values.explain ?? false,
    topUp: int('top-up', values['top-up'], 0, 0),
    keep: values.keep ?? false,
    pgCpu: values['pg-cpu'] ?? false,
  };
  if (opts.treeSessions * 200 > opts.spans / 2) {
    process.stderr.write('--tree-sessions × 200 must be at most half of --spans\n');
    process.exit(2);
  }

  const ac = new AbortController();
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals++;
    if (signals > 1) process.exit(130);
    process.stderr.write(`\n${sig}: stopping and cleaning up…\n`);
    ac.abort(new Error(sig));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const log: Log = (m) => process.stderr.write(`${m}\n`);
  try {
    if (values.fresh) {
      // Imported here: read-fresh.ts imports this module's helpers.
      const { runReadFresh, formatFresh } = await import('./read-fresh.ts');
      const r = await runReadFresh(
        {
          backend: opts.backend ?? 'postgres',
          spans: values.spans === undefined ? 100_000 : opts.spans,
          treeSessions: opts.treeSessions,
          rounds: int('rounds', values.rounds, 20, 1),
          waitMs: int('wait', values.wait, 90, 0) * 1000,
          groupSize: opts.groupSize,
        },
        log,
        ac.signal,
      );
      process.stdout.write(formatFresh(r));
      if (values.json) writeFileSync(resolve(values.json), `${JSON.stringify(r, null, 2)}\n`);
      return;
    }
    let reported = false;
    await runReadPath(opts, log, ac.signal, (result) => {
      reported = true;
      process.stdout.write(`${formatReport(result)}\n`);
      if (values.json) {
        const path = resolve(values.json);
        writeFileSync(path, `${JSON.stringify(result, null, 2)}\n`);
        log(`results written to ${path}`);
      }
    });
    if (!reported) process.exitCode = 1;
  } catch (err) {
    if (ac.signal.aborted) {
      process.exitCode = 130;
      return;
    }
    // drizzle's errors embed the whole statement and its parameters (megabytes for a span group).
    const e = err as Error & { cause?: unknown };
    const cause = e.cause instanceof Error ? `\ncaused by: ${e.cause.message}` : '';
    process.stderr.write(
      `read-path bench failed: ${clip(e.message ?? String(err))}${cause}\n${e.stack?.split('\n').slice(1, 8).join('\n') ?? ''}\n`,
    );
    process.exitCode = 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await main();
}
