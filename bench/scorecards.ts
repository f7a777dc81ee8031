/**
 * Scorecard benchmark: every server's scorecard computed from a long health history in PostgreSQL
 * (decisions §5 formulas over the store's aggregates). Default: 100 servers × 90 days of checks
 * every 60 s (12,960,000 health results), plus one scan with findings and a few drift events per
 * server; then ScoringService.forKeys for all 100 at once, timed (target: under 1 s in total).
 *
 *   node --import tsx bench/scorecards.ts                  full size (loading takes a few minutes)
 *   node --import tsx bench/scorecards.ts --servers 10 --days 7
 *   node --import tsx bench/scorecards.ts --database-url URL   an already loaded database
 *
 * `runScorecardBench` is exported for bench/run.ts.
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { ScoringService } from '../src/scoring/scoring-service.ts';
import { execute } from '../src/store/db.ts';
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
}

export async function runScorecardBench(o: ScorecardBenchOptions, progress: (msg: string) => void): Promise<ScorecardBenchResult> {
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
    const { rows } = await execute<{ n: number }>(store.db, sql`select count(*)::int as n from health_results`);
    const scoring = new ScoringService({ db: store.db, health: { targets: async () => [] } });
    const keys = names.map((serverName) => ({ projectId: 'default', serverName }));
    await scoring.forKeys(keys, now, []); // warm-up: plans and caches
    const runsMs: number[] = [];
    let grades: Record<string, number> = {};
    for (let i = 0; i < o.runs; i++) {
      const t = performance.now();
      const cards = await scoring.forKeys(keys, now, []);
      runsMs.push(performance.now() - t);
      grades = {};
      for (const c of cards) grades[c.grade] = (grades[c.grade] ?? 0) + 1;
    }
    const sorted = [...runsMs].sort((a, b) => a - b);
    const medianMs = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
    progress(`scorecards: ${o.servers} servers in ${medianMs.toFixed(0)} ms (median of ${o.runs}; runs ${runsMs.map((m) => m.toFixed(0)).join(', ')} ms)`);
    return { servers: o.servers, days: o.days, healthResults: Number(rows[0]?.n ?? 0), loadSeconds, runsMs, medianMs, grades, pass: medianMs < TARGET_MS };
  } finally {
    await store.close();
    await stopCluster?.();
  }
}

/** One statement per server per 10 days of checks every minute: ~0.5% down, latency 20-30 ms with rare spikes. */
export async function load(store: Store, names: string[], days: number, now: Date, progress: (msg: string) => void): Promise<number> {
  const t = performance.now();
  const minutes = days * 1440;
  const chunk = 10 * 1440;
  for (const [i, name] of names.entries()) {
    for (let from = 0; from < minutes; from += chunk) {
      const to = Math.min(minutes, from + chunk) - 1;
      await execute(
        store.db,
        sql`insert into health_results (id, project_id, server_name, status, latency_ms, tools_count, checked_at)
            select md5(${name} || m::text), 'default', ${name}, s.status, case when s.status = 'down' then null else 20 + random() * 10 + (case when random() < 0.002 then 400 else 0 end) end,
                   12, ${now.toISOString()}::timestamptz - make_interval(mins => m)
            from generate_series(${from}::int, ${to}::int) as m
            cross join lateral (select case when random() < 0.005 then 'down' else 'up' end as status where m >= 0) s`,
      );
    }
    await insertScan(store.db, {
      id: randomUUID(), projectId: 'default', serverName: name, scannedAt: new Date(now.getTime() - 3_600_000),
      findings: [
        { severity: i % 10 === 0 ? 'high' : 'medium', category: 'OWASP-MCP-04', rule: 'supply-chain.unpinned', kind: 'owasp', title: 'unpinned launch', description: 'npx -y without a version', remediation: 'pin a version' },
        { severity: 'low', category: 'OWASP-MCP-07', rule: 'transport.plaintext', kind: 'owasp', title: 'plaintext', description: 'http://', remediation: 'use https' },
      ],
    });
    for (let d = 0; d < i % 4; d++) {
      await execute(
        store.db,
        sql`insert into drift_events (id, project_id, server_name, detected_at, previous_hash, current_hash, classification, changes)
            values (${randomUUID()}, 'default', ${name}, ${new Date(now.getTime() - (d + 1) * 86_400_000).toISOString()}::timestamptz, 'a', 'b', ${['COMPATIBLE', 'WARNING', 'BREAKING'][d % 3] as string}, '[]'::jsonb)`,
      );
    }
    if ((i + 1) % 10 === 0) progress(`scorecards: loaded ${i + 1}/${names.length} servers (${((performance.now() - t) / 1000).toFixed(0)} s)`);
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
    `grades: ${Object.entries(r.grades).map(([g, n]) => `${g} ${n}`).join(', ')}; load took ${r.loadSeconds.toFixed(0)} s`,
    '',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { servers: { type: 'string' }, days: { type: 'string' }, runs: { type: 'string' }, 'database-url': { type: 'string' } } });
  const r = await runScorecardBench(
    { servers: Number(values.servers ?? 100), days: Number(values.days ?? 90), runs: Number(values.runs ?? 5), databaseUrl: values['database-url'] },
    (m) => process.stderr.write(`[bench] ${m}\n`),
  );
  process.stdout.write(formatScorecardReport(r));
}
