/**
 * Scorecard benchmark: every server's scorecard computed from a long health history in PostgreSQL
 * (docs/scorecards.md formulas over the store's aggregates). Default: 100 servers × 90 days of checks
 * every 60 s (12,960,000 health results), plus one scan with findings and a few drift events per
 * server; then ScoringService.forKeys for all 100 at once, timed (target: under 1 s in total).
 *
 *   node --import tsx bench/scorecards.ts                  full size (loading takes a few minutes)
 *   node --import tsx bench/scorecards.ts --servers 10 --days 7
 *   node --import tsx bench/scorecards.ts --database-url URL   an already loaded database
 *   … --explain                                            also print EXPLAIN (ANALYZE, BUFFERS) of the statement
 *
 * `runScorecardBench` is exported for bench/run.ts.
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { readFileSync } from 'node:fs';
import { LOCAL_ADMIN } from '../src/auth/principal.ts';
import { ScoringService } from '../src/scoring/scoring-service.ts';
import { execute, type Db } from '../src/store/db.ts';
import { saveCheck } from '../src/store/health-repo.ts';
import { scoreInputsStatement } from '../src/store/scoring-repo.ts';
import { openStore, type Store } from '../src/store/open-store.ts';
import { insertScan } from '../src/store/security-repo.ts';
import { startPgCluster } from '../test/helpers/pg-cluster.ts';

export const TARGET_MS = 1_000;

export interface ScorecardBenchOptions {
  servers: number;
  days: number;
  /** Timed runs after one warm-up. */
  runs: number;
  databaseUrl?: string | undefined;
  /** Print EXPLAIN (ANALYZE, BUFFERS) of the scorecard statement through `progress`. */
  explain?: boolean | undefined;
}

export interface ScorecardBenchResult {
  servers: number;
  days: number;
  healthResults: number;
  loadSeconds: number;
  /** Wall time of one call computing every server's scorecard, per run. */
  runsMs: number[];
  medianMs: number;
  grades: Record<string, number>;
  pass: boolean;
  /** /proc/loadavg (1, 5, 15 minutes) before and after the timed runs: the machine is shared. */
  loadAvg: { before: string; after: string };
  /** One health check saved through the checker's saveCheck (and so the rollup triggers), ms. */
  ingestMs: { median: number; p99: number; checks: number };
  /** One insert of a check without commit, with the rollup trigger on and off, ms (medians). */
  triggerMs: { on: number; off: number };
}

export async function runScorecardBench(
  o: ScorecardBenchOptions,
  progress: (msg: string) => void,
): Promise<ScorecardBenchResult> {
  let stopCluster: (() => Promise<void>) | null = null;
  let url = o.databaseUrl;
  if (!url) {
    progress('scorecards: starting a throwaway PostgreSQL cluster');
    const cluster = await startPgCluster();
    stopCluster = () => cluster.stop();
    url = await cluster.createDatabase(`bench_scorecards_${Date.now()}`);
  }
  const store = await openStore({ databaseUrl: url, dataDir: '', poolSize: 4 });
  const now = new Date();
  const names = Array.from({ length: o.servers }, (_, i) => `server-${String(i).padStart(3, '0')}`);
  try {
    let loadSeconds = 0;
    if (!o.databaseUrl) loadSeconds = await load(store, names, o.days, now, progress);
    const { rows } = await execute<{ n: number }>(
      store.db,
      sql`select count(*)::int as n from health_results`,
    );
    const scoring = new ScoringService({ db: store.db, health: { targets: async () => [] } });
    const keys = names.map((serverName) => ({ projectId: 'default', serverName }));
    await scoring.forKeys(LOCAL_ADMIN, keys, now); // warm-up: plans and caches
    if (o.explain) progress(`scorecards: EXPLAIN\n${await explain(store.db, keys, now)}`);
    const before = loadAvg();
    const runsMs: number[] = [];
    let grades: Record<string, number> = {};
    for (let i = 0; i < o.runs; i++) {
      const t = performance.now();
      const cards = await scoring.forKeys(LOCAL_ADMIN, keys, now);
      runsMs.push(performance.now() - t);
      grades = {};
      for (const c of cards) grades[c.grade] = (grades[c.grade] ?? 0) + 1;
    }
    const after = loadAvg();
    const medianMs = quantile(runsMs, 0.5);
    progress(
      `scorecards: ${o.servers} servers in ${medianMs.toFixed(0)} ms (median of ${o.runs}; runs ${runsMs.map((m) => m.toFixed(0)).join(', ')} ms; load average ${before} → ${after})`,
    );
    // After the timed runs: these checks land in the current hour and would change the scorecards.
    const ingestMs = await ingestCost(store.db, names, now);
    const triggerMs = await triggerCost(store.db, names, now);
    progress(
      `scorecards: one health check saved in ${ingestMs.median.toFixed(2)} ms (median of ${ingestMs.checks}, p99 ${ingestMs.p99.toFixed(2)} ms), insert ${triggerMs.on.toFixed(2)} ms with the rollup trigger, ${triggerMs.off.toFixed(2)} ms without`,
    );
    return {
      servers: o.servers,
      days: o.days,
      healthResults: Number(rows[0]?.n ?? 0),
      loadSeconds,
      runsMs,
      medianMs,
      grades,
      pass: medianMs < TARGET_MS,
      loadAvg: { before, after },
      ingestMs,
      triggerMs,
    };
  } finally {
    await store.close();
    await stopCluster?.();
  }
}

function loadAvg(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;
}

async function explain(
  db: Db,
  keys: { projectId: string; serverName: string }[],
  now: Date,
): Promise<string> {
  const { rows } = await db.transaction(async (tx) => {
    await execute(tx as unknown as Db, sql`set local jit = off`);
    return execute<{ 'QUERY PLAN': string }>(
      tx as unknown as Db,
      sql`explain (analyze, buffers) ${scoreInputsStatement(keys, now)}`,
    );
  });
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

/**
 * The ingest side of the rollups: one check per server per minute goes through saveCheck, whose
 * insert fires the statement triggers that fold it into the hourly and daily rollups. Three
 * rounds over every server, one check at a time, as the checker saves them.
 */
async function ingestCost(
  db: Db,
  names: string[],
  now: Date,
): Promise<{ median: number; p99: number; checks: number }> {
  const times: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const name of names) {
      const t = performance.now();
      await saveCheck(db, {
        result: {
          id: randomUUID(),
          projectId: 'default',
          serverName: name,
          status: 'up',
          latencyMs: 25,
          toolsCount: 12,
          schemaHash: null,
          error: null,
          checkedAt: new Date(now.getTime() + round * 60_000),
          schemaDrift: false,
          transport: 'stdio',
          serverInfo: null,
          protocolVersion: null,
        },
        instructions: null,
        tools: null,
        drift: null,
      });
      times.push(performance.now() - t);
    }
  }
  return { median: quantile(times, 0.5), p99: quantile(times, 0.99), checks: times.length };
}

/**
 * The rollup trigger's share of one check: the same single-row inserts timed with the insert
 * trigger on and then off (ALTER TABLE … DISABLE TRIGGER inside the transaction), medians, all
 * rolled back. Without the commit, which dominates saveCheck.
 */
async function triggerCost(
  db: Db,
  names: string[],
  now: Date,
): Promise<{ on: number; off: number }> {
  const out = { on: Number.NaN, off: Number.NaN };
  const insertAll = async (t: Db): Promise<number> => {
    const times: number[] = [];
    for (const name of names) {
      const start = performance.now();
      await execute(
        t,
        sql`insert into health_results (id, project_id, server_name, status, latency_ms, tools_count, checked_at)
                           values (${randomUUID()}, 'default', ${name}, 'up', 25, 12, ${now.toISOString()}::timestamptz)`,
      );
      times.push(performance.now() - start);
    }
    return quantile(times, 0.5);
  };
  await db
    .transaction(async (tx) => {
      const t = tx as unknown as Db;
      out.on = await insertAll(t);
      await execute(t, sql`alter table health_results disable trigger health_hourly_insert`);
      out.off = await insertAll(t);
      throw new RolledBack();
    })
    .catch((e: unknown) => {
      if (!(e instanceof RolledBack)) throw e;
    });
  return out;
}

class RolledBack extends Error {}

/**
 * One statement per server per 10 days of checks every minute: ~0.5% down, latency 20-30 ms with
 * rare spikes, through the rollup triggers like any other insert. Ids sort by server and minute so
 * the primary key grows at its edge rather than by random inserts into an index larger than memory.
 */
export async function load(
  store: Store,
  names: string[],
  days: number,
  now: Date,
  progress: (msg: string) => void,
): Promise<number> {
  const t = performance.now();
  const minutes = days * 1440;
  const chunk = 10 * 1440;
  for (const [i, name] of names.entries()) {
    for (let from = 0; from < minutes; from += chunk) {
      const to = Math.min(minutes, from + chunk) - 1;
      await execute(
        store.db,
        sql`insert into health_results (id, project_id, server_name, status, latency_ms, tools_count, checked_at)
            select ${name}::text || '-' || lpad(m::text, 6, '0'), 'default', ${name}, s.status, case when s.status = 'down' then null else 20 + random() * 10 + (case when random() < 0.002 then 400 else 0 end) end,
                   12, ${now.toISOString()}::timestamptz - make_interval(mins => m)
            from generate_series(${from}::int, ${to}::int) as m
            cross join lateral (select case when random() < 0.005 then 'down' else 'up' end as status where m >= 0) s`,
      );
    }
    await insertScan(store.db, {
      id: randomUUID(),
      projectId: 'default',
      serverName: name,
      scannedAt: new Date(now.getTime() - 3_600_000),
      findings: [
        {
          severity: i % 10 === 0 ? 'high' : 'medium',
          category: 'OWASP-MCP-04',
          rule: 'supply-chain.unpinned',
          kind: 'owasp',
          title: 'unpinned launch',
          description: 'npx -y without a version',
          remediation: 'pin a version',
        },
        {
          severity: 'low',
          category: 'OWASP-MCP-07',
          rule: 'transport.plaintext',
          kind: 'owasp',
          title: 'plaintext',
          description: 'http://',
          remediation: 'use https',
        },
      ],
    });
    for (let d = 0; d < i % 4; d++) {
      await execute(
        store.db,
        sql`insert into drift_events (id, project_id, server_name, detected_at, previous_hash, current_hash, classification, changes)
            values (${randomUUID()}, 'default', ${name}, ${new Date(now.getTime() - (d + 1) * 86_400_000).toISOString()}::timestamptz, 'a', 'b', ${['COMPATIBLE', 'WARNING', 'BREAKING'][d % 3] as string}, '[]'::jsonb)`,
      );
    }
    if ((i + 1) % 10 === 0)
      progress(
        `scorecards: loaded ${i + 1}/${names.length} servers (${((performance.now() - t) / 1000).toFixed(0)} s)`,
      );
  }
  // What autovacuum does to a table that stopped changing: statistics and the visibility map.
  await execute(store.db, sql`vacuum analyze`);
  return (performance.now() - t) / 1000;
}

export function formatScorecardReport(r: ScorecardBenchResult): string {
  return [
    `## Scorecards (PostgreSQL): ${r.servers} servers × ${r.days} days of 60 s checks (${r.healthResults.toLocaleString('en-US')} health results)`,
    '',
    `all scorecards in one call: median ${r.medianMs.toFixed(0)} ms (runs: ${r.runsMs.map((m) => m.toFixed(0)).join(', ')} ms); target < ${TARGET_MS} ms: ${r.pass ? 'met' : '**not met**'}`,
    `grades: ${Object.entries(r.grades)
      .map(([g, n]) => `${g} ${n}`)
      .join(', ')}; load took ${r.loadSeconds.toFixed(0)} s`,
    `load average (1/5/15 min) ${r.loadAvg.before} before the runs, ${r.loadAvg.after} after`,
    `one health check saved (insert + rollup triggers): median ${r.ingestMs.median.toFixed(2)} ms, p99 ${r.ingestMs.p99.toFixed(2)} ms over ${r.ingestMs.checks} checks; one insert without commit: ${r.triggerMs.on.toFixed(2)} ms with the rollup trigger, ${r.triggerMs.off.toFixed(2)} ms without (medians)`,
    '',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      servers: { type: 'string' },
      days: { type: 'string' },
      runs: { type: 'string' },
      'database-url': { type: 'string' },
      explain: { type: 'boolean' },
    },
  });
  const r = await runScorecardBench(
    {
      servers: Number(values.servers ?? 100),
      days: Number(values.days ?? 90),
      runs: Number(values.runs ?? 5),
      databaseUrl: values['database-url'],
      explain: values.explain,
    },
    (m) => process.stderr.write(`[bench] ${m}\n`),
  );
  process.stdout.write(formatScorecardReport(r));
}
