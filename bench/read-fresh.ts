/**
 * Reads right after a load (`bench/read-path.ts --fresh`, `npm run bench -- --fresh-reads`): the
 * server loads N spans (default 100,000) through the ingest path while its statistics keeper counts
 * them, then every read endpoint is asked at once (the first round starts within milliseconds of the
 * last acknowledged span, no waiting for statistics), and again `waitMs` (90 s) later, with
 * EXPLAIN (ANALYZE, BUFFERS) of each endpoint's SQL at both moments. Target: each endpoint's p50
 * right after the load within 1.5× of its p50 later, and the same plan at both moments.
 * Rounds ask every endpoint once in turn, so no endpoint gets the first second alone.
 */
import { loadavg } from 'node:os';
import { sql } from 'drizzle-orm';
import type { Sql } from 'postgres';
import type { RunningServer } from '../src/main.ts';
import { execute } from '../src/store/db.ts';
import { loadNoted, PROJECTS } from './read-data.ts';
import { explainReadQueries, type ExplainResult } from './read-explain.ts';
import {
  buildCases,
  get,
  startBenchServerOn,
  stats,
  walkCursors,
  type LatencyStats,
  type Log,
  type Targets,
} from './read-cases.ts';

export const FRESH_MAX_RATIO = 1.5;

export interface FreshOptions {
  backend: 'postgres' | 'pglite';
  spans: number;
  treeSessions: number;
  /** Rounds of one request per endpoint at each moment. */
  rounds: number;
  /** From the last acknowledged span to the second measurement. */
  waitMs: number;
  groupSize: number;
}

export interface MomentResult {
  /** From the last acknowledged span to this moment's first and last request. */
  firstRequestMs: number;
  lastRequestMs: number;
  /** ANALYZE runs by the server's keeper before this moment's first request. */
  analyzesBefore: number;
  /** … and after its EXPLAINs: equal = the reads and the plans shown saw the same statistics. */
  analyzesAfter: number;
  /** Rows the planner believes each table holds (summed over partitions; -1 = never analyzed). */
  reltuples: Record<string, number>;
  /** Per partition of spans that holds rows: the rows its statistics describe, and its rows. */
  spanPartitions: { name: string; planner: number; rows: number }[];
  loadavg: number[];
  endpoints: { name: string; first: number; latency: LatencyStats }[];
  explain: ExplainResult[];
}

export interface FreshResult {
  backend: 'postgres' | 'pglite';
  spans: number;
  sessions: number;
  load: { ms: number; spansPerSec: number; loadavg: number[] };
  /** The keeper's ANALYZE runs during the load and up to the second moment. */
  statistics: {
    duringLoad: { count: number; totalMs: number; maxMs: number };
    /** Runs during the load by relation analyzed (a table, or a partition of spans). */
    duringLoadBy: Record<string, number>;
    total: number;
  };
  fresh: MomentResult;
  later: MomentResult;
  rows: FreshRow[];
  plans: PlanRow[];
  pass: boolean;
}

export interface FreshRow {
  name: string;
  freshP50: number;
  laterP50: number;
  ratio: number;
  pass: boolean;
}

export interface PlanRow {
  name: string;
  freshMs: number;
  laterMs: number;
  sameShape: boolean;
  freshSeqScans: string[];
  laterSeqScans: string[];
}

const STAT_TABLES = ['spans', 'sessions', 'session_tools', 'lineage_hourly', 'lineage_blocks'];

export async function runReadFresh(
  opts: FreshOptions,
  log: Log,
  signal?: AbortSignal,
): Promise<FreshResult> {
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const server = await startBenchServerOn(opts.backend, 'spyglass_fresh_reads', cleanups);
    const db = server.services.store.db;
    log(`fresh reads (${opts.backend}): loading ${opts.spans.toLocaleString('en-US')} spans…`);
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
    );
    const lastAck = performance.now();
    const duringLoad = { ...server.services.stats.analyses };
    const duringLoadBy = Object.fromEntries(server.services.stats.runsByRelation);
    const loadAvg = loadavg();
    const info = loaded.info;
    // Targets from the generator, not from the database: no query runs before the first read.
    const targets: Targets = {
      treeSessions: info.treeSessionIds.map((id) => ({ projectId: 'default', id, spans: 200 })),
      traces: info.sampleTraces
        .slice(0, 20)
        .map((t) => ({ projectId: t.projectId, id: t.traceId, spans: t.spans })),
      agents: [...info.agents].slice(0, 10),
      projects: [...PROJECTS],
    };
    const fresh = await measureMoment(server, targets, opts, lastAck, signal);
    log(
      `  fresh: requests from +${fresh.firstRequestMs} ms to +${fresh.lastRequestMs} ms after the last span; ANALYZE runs ${fresh.analyzesBefore} before, ${fresh.analyzesAfter} after`,
    );
    const wait = lastAck + opts.waitMs - performance.now();
    if (wait > 0) {
      log(`  waiting ${Math.round(wait / 1000)} s…`);
      await new Promise((r) => setTimeout(r, wait));
    }
    signal?.throwIfAborted();
    const later = await measureMoment(server, targets, opts, lastAck, signal);
    const total = server.services.stats.analyses.count;
    const rows = fresh.endpoints.map((f, i) => {
      const l = later.endpoints[i] as MomentResult['endpoints'][number];
      const ratio = f.latency.p50 / l.latency.p50;
      return {
        name: f.name,
        freshP50: f.latency.p50,
        laterP50: l.latency.p50,
        ratio: Math.round(ratio * 100) / 100,
        pass: ratio <= FRESH_MAX_RATIO,
      };
    });
    const plans = fresh.explain.map((f) => {
      const l = later.explain.find((x) => x.name === f.name);
      return {
        name: f.name,
        freshMs: f.executionMs,
        laterMs: l?.executionMs ?? Number.NaN,
        sameShape: l !== undefined && planShape(f.plan) === planShape(l.plan),
        freshSeqScans: seqScans(f.plan),
        laterSeqScans: l ? seqScans(l.plan) : [],
      };
    });
    return {
      backend: opts.backend,
      spans: info.spans,
      sessions: info.sessions,
      load: {
        ms: Math.round(loaded.loadMs),
        spansPerSec: Math.round(info.spans / (loaded.loadMs / 1000)),
        loadavg: round2(loadAvg),
      },
      statistics: {
        duringLoad: {
          count: duringLoad.count,
          totalMs: Math.round(duringLoad.totalMs),
          maxMs: Math.round(duringLoad.maxMs),
        },
        duringLoadBy,
        total,
      },
      fresh,
      later,
      rows,
      plans,
      pass: rows.every((r) => r.pass) && plans.every((p) => p.sameShape),
    };
  } finally {
    for (const fn of cleanups.splice(0).reverse())
      await fn().catch((err: unknown) => log(`cleanup: ${(err as Error).message}`));
  }
}

async function measureMoment(
  server: RunningServer,
  targets: Targets,
  opts: FreshOptions,
  lastAck: number,
  signal?: AbortSignal,
): Promise<MomentResult> {
  const analyzesBefore = server.services.stats.analyses.count;
  const base = server.httpUrl;
  const firstRequestMs = Math.round(performance.now() - lastAck);
  const cursors = await walkCursors(base, 'limit=50', 3);
  const cases = buildCases(targets, cursors);
  const lat: number[][] = cases.map(() => []);
  for (let round = 0; round < opts.rounds; round++)
    for (const [i, c] of cases.entries()) {
      const r = await get(base, c.paths[round % c.paths.length] as string, signal);
      if (r.status !== 200)
        throw new Error(`${c.name}: status ${r.status}: ${r.body.slice(0, 200)}`);
      (lat[i] as number[]).push(r.ms);
    }
  const lastRequestMs = Math.round(performance.now() - lastAck);
  const la = loadavg();
  const db = server.services.store.db;
  const explain = await explainReadQueries(
    { client: (db as unknown as { $client: Sql }).$client },
    {
      treeSession: targets.treeSessions[0] as Targets['treeSessions'][number],
      trace: targets.traces[0] as Targets['traces'][number],
      agent: targets.agents[0] as string,
      cursor: cursors[0],
    },
  );
  const reltuples: Record<string, number> = {};
  for (const t of STAT_TABLES) {
    // A partitioned table's rows are its leaves'; pg_partition_tree lists nothing for a plain one.
    const { rows } = await execute<{ n: number | string }>(
      db,
      sql`select case when bool_or(c.reltuples < 0 and pg_relation_size(c.oid) > 0) then -1
                      else sum(greatest(c.reltuples, 0)) end as n
          from pg_class c
          where c.oid = to_regclass(${t}) and c.relkind <> 'p'
             or c.oid in (select relid from pg_partition_tree(to_regclass(${t})) where isleaf)`,
    );
    reltuples[t] = Number(rows[0]?.n ?? -1);
  }
  const { rows: parts } = await execute<{ name: string; planner: number | string }>(
    db,
    sql`select c.relname as name, c.reltuples as planner from pg_class c
        where c.oid in (select relid from pg_partition_tree(to_regclass('spans')) where isleaf)
          and pg_relation_size(c.oid) > 0
        order by c.relname`,
  );
  const spanPartitions: MomentResult['spanPartitions'] = [];
  for (const p of parts) {
    const { rows } = await execute<{ n: number | string }>(
      db,
      sql`select count(*) as n from ${sql.identifier(p.name)}`,
    );
    spanPartitions.push({ name: p.name, planner: Number(p.planner), rows: Number(rows[0]?.n) });
  }
  return {
    firstRequestMs,
    lastRequestMs,
    analyzesBefore,
    analyzesAfter: server.services.stats.analyses.count,
    reltuples,
    spanPartitions,
    loadavg: round2(la),
    endpoints: cases.map((c, i) => ({
      name: c.name,
      first: Math.round((lat[i]?.[0] ?? Number.NaN) * 100) / 100,
      latency: stats(lat[i] as number[]),
    })),
    explain,
  };
}

/** A plan's nodes without their costs, timings and row counts. */
export function planShape(plan: string): string {
  return plan
    .split('\n')
    .filter((l) => l.includes('(cost='))
    .map((l) => l.replace(/\s*\(cost=.*$/, '').trim())
    .join(' | ');
}

/**
 * Relations a plan reads by sequential scan, with the rows the scan read (returned + removed by its
 * filter); scans of empty relations (the days ahead's partitions) are left out.
 */
export function seqScans(plan: string): string[] {
  const out: string[] = [];
  const lines = plan.split('\n');
  for (const [i, line] of lines.entries()) {
    const m = /Seq Scan on (\S+).*actual time=\S+ rows=([\d.]+) loops=(\d+)/.exec(line);
    if (!m) continue;
    // PostgreSQL 18 (PGlite) prints rows with two decimals (an average over loops).
    let rows = Math.round(Number(m[2]) * Number(m[3]));
    for (const next of lines.slice(i + 1)) {
      if (next.includes('(cost=')) break;
      const removed = /Rows Removed by Filter: (\d+)/.exec(next);
      if (removed) rows += Number(removed[1]) * Number(m[3]);
    }
    if (rows > 0) out.push(`${m[1]}(${rows})`);
  }
  return out;
}

const round2 = (xs: number[]) => xs.map((x) => Math.round(x * 100) / 100);

export function formatFresh(r: FreshResult): string {
  const name = r.backend === 'pglite' ? 'PGlite' : 'PostgreSQL';
  const out = [
    `Fresh reads, ${name}: ${r.spans.toLocaleString('en-US')} spans (${r.sessions.toLocaleString('en-US')} sessions) loaded in ${(r.load.ms / 1000).toFixed(1)} s (${r.load.spansPerSec.toLocaleString('en-US')} spans/s, load avg ${r.load.loadavg.join(' ')})`,
    `keeper ANALYZE during the load: ${r.statistics.duringLoad.count} runs, ${r.statistics.duringLoad.totalMs} ms in all, longest ${r.statistics.duringLoad.maxMs} ms (${Object.entries(
      r.statistics.duringLoadBy,
    )
      .map(([t, n]) => `${t} ${n}`)
      .join(', ')}); ${r.later.analyzesBefore} runs before the second moment`,
  ];
  for (const [label, m] of [
    ['right after', r.fresh],
    ['later', r.later],
  ] as const)
    out.push(
      `${label}: ANALYZE runs ${m.analyzesBefore} before, ${m.analyzesAfter} after the EXPLAINs; requests +${(m.firstRequestMs / 1000).toFixed(2)} s to +${(m.lastRequestMs / 1000).toFixed(2)} s after the last span, load avg ${m.loadavg.join(' ')}, planner rows ${Object.entries(
        m.reltuples,
      )
        .map(([t, n]) => `${t} ${n.toLocaleString('en-US')}`)
        .join(', ')}; spans partitions, planner rows of rows: ${m.spanPartitions
        .map(
          (p) =>
            `${p.name} ${p.planner.toLocaleString('en-US')} of ${p.rows.toLocaleString('en-US')}`,
        )
        .join(', ')}`,
    );
  out.push('');
  const head = [
    'endpoint',
    'first ms',
    'p50 now',
    'p95 now',
    'p50 later',
    'p95 later',
    'ratio',
    `≤ ${FRESH_MAX_RATIO}×`,
  ];
  const rows = r.rows.map((row, i) => {
    const f = r.fresh.endpoints[i];
    const l = r.later.endpoints[i];
    return [
      row.name,
      (f?.first ?? 0).toFixed(1),
      row.freshP50.toFixed(1),
      (f?.latency.p95 ?? 0).toFixed(1),
      row.laterP50.toFixed(1),
      (l?.latency.p95 ?? 0).toFixed(1),
      row.ratio.toFixed(2),
      row.pass ? 'pass' : 'FAIL',
    ];
  });
  out.push(...table(head, rows), '');
  const planHead = [
    'query (EXPLAIN ANALYZE)',
    'db ms now',
    'db ms later',
    'plan',
    'seq scans now',
    'later',
  ];
  const planRows = r.plans.map((p) => [
    p.name,
    p.freshMs.toFixed(2),
    p.laterMs.toFixed(2),
    p.sameShape ? 'same' : 'DIFFERS',
    p.freshSeqScans.join(' ') || '-',
    p.laterSeqScans.join(' ') || '-',
  ]);
  out.push(...table(planHead, planRows), '');
  out.push(
    `fresh reads ${name}: ${r.pass ? 'PASS' : 'FAIL'} (p50 right after ≤ ${FRESH_MAX_RATIO}× p50 later for every endpoint, and the same plan shapes)`,
  );
  for (const p of r.plans.filter((x) => !x.sameShape)) {
    const f = r.fresh.explain.find((x) => x.name === p.name);
    const l = r.later.explain.find((x) => x.name === p.name);
    out.push(
      '',
      `-- ${p.name}, right after:`,
      f?.plan ?? '',
      `-- ${p.name}, later:`,
      l?.plan ?? '',
    );
  }
  return `${out.join('\n')}\n`;
}

function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) =>
    Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
      .join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}
