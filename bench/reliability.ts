/**
 * Reliability benchmark (issue: SLO evaluation, anomaly detection and a 30-day cost breakdown over
 * 1,000,000 stored spans, each under 500 ms). The spans are the read-path generator's multi-agent
 * sessions spread over 30 days instead of one, loaded through the real ingest statement so the
 * session and hourly rollups these reads use are the ones the server keeps.
 *
 *   node --import tsx bench/reliability.ts                     full size (loading takes ~6 min)
 *   node --import tsx bench/reliability.ts --spans 100000
 *   node --import tsx bench/reliability.ts --database-url URL  an already loaded database
 *
 * Each read is timed over `runs` calls after one warm-up, for project 'default' (~90 % of the data)
 * with one SLO per agent and metric (40 SLOs). `runReliabilityBench` is exported for bench/run.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { LOCAL_ADMIN } from '../src/auth/principal.ts';
import { loadConfig } from '../src/config/load-config.ts';
import { createServices, type Services } from '../src/services.ts';
import { execute } from '../src/store/db.ts';
import { openStore } from '../src/store/open-store.ts';
import { startPgCluster } from '../test/helpers/pg-cluster.ts';
import { AGENTS, loadSpans } from './read-data.ts';

export const TARGET_MS = 500;

export interface ReliabilityBenchOptions {
  spans: number;
  days: number;
  runs: number;
  databaseUrl?: string | undefined;
}

export interface ReadTiming {
  what: string;
  medianMs: number;
  maxMs: number;
  /** What the call returned, to show it did real work. */
  result: string;
  pass: boolean;
}

export interface ReliabilityBenchResult {
  spans: number;
  days: number;
  sessions: number;
  spanHourlyRows: number;
  loadSeconds: number;
  timings: ReadTiming[];
  loadAvg: { before: string; after: string };
}

export async function runReliabilityBench(
  o: ReliabilityBenchOptions,
  progress: (msg: string) => void,
): Promise<ReliabilityBenchResult> {
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    let url = o.databaseUrl;
    if (!url) {
      progress('reliability: starting a throwaway PostgreSQL cluster');
      const cluster = await startPgCluster();
      cleanups.push(() => cluster.stop());
      url = await cluster.createDatabase(`bench_reliability_${Date.now()}`);
    }
    const dir = mkdtempSync(join(tmpdir(), 'spyglass-reliability-bench-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const config = loadConfig({ SPYGLASS_DATABASE_URL: url, SPYGLASS_DATA_DIR: dir }, dir);
    const store = await openStore({ databaseUrl: url, dataDir: dir, poolSize: 4 });
    cleanups.push(() => store.close());
    const services = await createServices(
      config,
      store,
      pino({ level: 'error' }, pino.destination(2)),
    );
    cleanups.push(() => services.close());
    const now = new Date();
    let loadSeconds = 0;
    if (!o.databaseUrl) {
      progress(
        `reliability: loading ${o.spans.toLocaleString('en-US')} spans over ${o.days} days through the ingest statement…`,
      );
      let last = 0;
      const loaded = await loadSpans(
        store.db,
        { spans: o.spans, treeSessions: 0, end: now, hours: o.days * 24, groupSize: 5_000 },
        ({ spans, elapsedMs }) => {
          if (elapsedMs - last < 10_000) return;
          last = elapsedMs;
          progress(`  ${spans.toLocaleString('en-US')} spans, ${(elapsedMs / 1000).toFixed(0)} s`);
        },
      );
      loadSeconds = loaded.loadMs / 1000;
      await execute(store.db, sql`analyze`);
    }
    const counts = await execute<{ spans: number; sessions: number; hourly: number }>(
      store.db,
      sql`select (select count(*) from spans)::int as spans, (select count(*) from sessions)::int as sessions, (select count(*) from span_hourly)::int as hourly`,
    );
    const c = counts.rows[0] ?? { spans: 0, sessions: 0, hourly: 0 };
    progress(
      `reliability: ${c.spans.toLocaleString('en-US')} spans, ${c.sessions.toLocaleString('en-US')} sessions, ${c.hourly.toLocaleString('en-US')} span_hourly rows`,
    );
    await defineSlos(services);
    const before = loadAvg();
    const timings = [
      await time('SLO evaluation (40 SLOs, 24 h and 7 d windows)', o.runs, async () => {
        const items = await services.slos.evaluate('default', now);
        return `${items.length} SLOs, ${items.filter((i) => i.status === 'breached').length} breached`;
      }),
      // The detector keeps each tool's baseline until its sample hour moves, so a run either
      // recomputes every baseline (the first of a project, then about once an hour) or reuses them.
      await time(
        'anomaly detection, every baseline recomputed (every server + tool, 7 days)',
        o.runs,
        async () => {
          await execute(store.db, sql`delete from anomaly_states where project_id = 'default'`);
          const found = await services.anomalies.detect('default', now);
          return `${found.length} tool metrics, ${found.filter((a) => a.severity !== null).length} anomalous`;
        },
      ),
      await time(
        'anomaly detection, baselines reused (the other runs of an hour)',
        o.runs,
        async () => {
          const found = await services.anomalies.detect('default', now);
          return `${found.length} tool metrics, ${found.filter((a) => a.severity !== null).length} anomalous`;
        },
      ),
      await time('cost breakdown, 30 days', o.runs, async () => {
        const b = await services.costs.breakdown(LOCAL_ADMIN, { window: '30d', now });
        return `$${b.totalCostUsd.toFixed(2)} over ${b.byModel.length} models, ${b.byTool.length} tools, ${b.byAgent.length} agents`;
      }),
    ];
    for (const t of timings)
      progress(
        `reliability: ${t.what}: median ${t.medianMs.toFixed(1)} ms, max ${t.maxMs.toFixed(1)} ms (${t.result})`,
      );
    return {
      spans: c.spans,
      days: o.days,
      sessions: c.sessions,
      spanHourlyRows: c.hourly,
      loadSeconds,
      timings,
      loadAvg: { before, after: loadAvg() },
    };
  } finally {
    for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
  }
}

/** One success-rate and one p99 SLO per agent, half over 24 h and half over 7 days. */
async function defineSlos(services: Services): Promise<void> {
  const existing = await services.slos.list(LOCAL_ADMIN, 'default');
  if (existing.length > 0) return;
  for (const [i, agent] of AGENTS.entries()) {
    const windowHours = i % 2 === 0 ? 24 : 168;
    await services.slos.create(LOCAL_ADMIN, {
      agentName: agent,
      metric: 'success_rate',
      threshold: 95,
      windowHours,
    });
    await services.slos.create(LOCAL_ADMIN, {
      agentName: agent,
      metric: 'latency_p99',
      threshold: 30_000,
      windowHours,
    });
  }
}

async function time(what: string, runs: number, fn: () => Promise<string>): Promise<ReadTiming> {
  await fn(); // warm-up: plans and caches
  const ms: number[] = [];
  let result = '';
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    result = await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  const medianMs = ms[Math.floor(ms.length / 2)] ?? Number.NaN;
  return {
    what,
    medianMs,
    maxMs: ms[ms.length - 1] ?? Number.NaN,
    result,
    pass: medianMs < TARGET_MS,
  };
}

function loadAvg(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

export function formatReliabilityReport(r: ReliabilityBenchResult): string {
  return [
    `## Reliability reads (PostgreSQL): ${r.spans.toLocaleString('en-US')} spans over ${r.days} days (${r.sessions.toLocaleString('en-US')} sessions, ${r.spanHourlyRows.toLocaleString('en-US')} hourly rollup rows)`,
    '',
    '| read | median | max | result | target < 500 ms |',
    '|---|---|---|---|---|',
    ...r.timings.map(
      (t) =>
        `| ${t.what} | ${t.medianMs.toFixed(1)} ms | ${t.maxMs.toFixed(1)} ms | ${t.result} | ${t.pass ? 'met' : '**not met**'} |`,
    ),
    '',
    `load took ${r.loadSeconds.toFixed(0)} s; load average (1/5/15 min) ${r.loadAvg.before} before the runs, ${r.loadAvg.after} after`,
    '',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      spans: { type: 'string' },
      days: { type: 'string' },
      runs: { type: 'string' },
      'database-url': { type: 'string' },
    },
  });
  const r = await runReliabilityBench(
    {
      spans: Number(values.spans ?? 1_000_000),
      days: Number(values.days ?? 30),
      runs: Number(values.runs ?? 7),
      databaseUrl: values['database-url'],
    },
    (m) => process.stderr.write(`[bench] ${m}\n`),
  );
  process.stdout.write(formatReliabilityReport(r));
}
