/**
 * The lineage cache (src/store/lineage-cache.ts) against sumLineage's SQL on a loaded PGlite data
 * directory (bench/read-path.ts --backend pglite --data-dir DIR makes one): for windows of --hours
 * ending now and at each of the --positions hours before (so the window's last hour falls at every
 * place in its 4-hour block), for every project and per project, whether the rows, their order,
 * calls and errors are the same, how many latency sums differ in their bits and whether the API's
 * JSON differs; and the time of each way (sumLineage, the cache's first read, its later reads).
 *
 *   node --import tsx bench/lineage-cache-check.ts --data-dir DIR [--hours 24] [--positions 8] [--reads 30] [--until data|ISO]
 *
 * The windows end now, or at --until: `data` is the newest span's start, so that the window's last
 * hour holds what a loaded hour holds (a kept directory read an hour after its load has an empty
 * current hour, which a cached read answers without a row).
 *
 * It opens DIR as the server does (PGlite's data-dir lock: no server may hold it), reads only.
 */
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { toLineageJson } from '../src/model/session.ts';
import { buildLineage } from '../src/sessions/lineage.ts';
import { LineageCache } from '../src/store/lineage-cache.ts';
import { sumLineage, type LineageRow } from '../src/store/lineage-repo.ts';
import { openStore } from '../src/store/open-store.ts';
import { execute } from '../src/store/db.ts';
import { sql } from 'drizzle-orm';

const H = 3_600_000;
const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    hours: { type: 'string' },
    positions: { type: 'string' },
    reads: { type: 'string' },
    until: { type: 'string' },
  },
});
if (!values['data-dir']) {
  process.stderr.write(
    'usage: node --import tsx bench/lineage-cache-check.ts --data-dir DIR [--hours 24] [--positions 8] [--reads 30] [--until data|ISO]\n',
  );
  process.exit(2);
}
const hours = Number(values.hours ?? 24);
const positions = Number(values.positions ?? 8);
const reads = Number(values.reads ?? 30);

const store = await openStore({ dataDir: values['data-dir'] });
try {
  const db = store.db;
  const { rows: projects } = await execute<{ id: string }>(
    db,
    sql`select distinct project_id as id from lineage_blocks order by 1`,
  );
  const scopes: (string | null)[] = [null, ...projects.map((p) => p.id)];
  let now = Date.now();
  if (values.until === 'data') {
    const { rows } = await execute<{ t: string }>(
      db,
      sql`select max(hour)::text as t from lineage_hourly`,
    );
    const { rows: spans } = await execute<{ t: string }>(
      db,
      sql`select max(started_at)::text as t from spans where started_at >= ${rows[0]?.t ?? '-infinity'}::timestamptz`,
    );
    now = new Date(spans[0]?.t ?? now).getTime();
  } else if (values.until) now = new Date(values.until).getTime();
  process.stdout.write(`windows end at ${new Date(now).toISOString()}\n`);
  let windows = 0;
  let rowsCompared = 0;
  let shapeDiffs = 0;
  let latencyBitDiffs = 0;
  let jsonDiffs = 0;
  const same = (a: LineageRow, b: LineageRow) =>
    a.edge_type === b.edge_type &&
    a.source === b.source &&
    a.target === b.target &&
    a.calls === b.calls &&
    a.errors === b.errors;
  for (let p = 0; p < positions; p++) {
    const until = new Date(now - p * H);
    const since = new Date(until.getTime() - hours * H);
    for (const scope of scopes) {
      const cache = new LineageCache(db);
      const want = await sumLineage(db, scope, since, until);
      const first = await cache.sum(scope, since, until);
      const again = await cache.sum(scope, since, until);
      for (const got of [first, again]) {
        windows++;
        if (got.length !== want.length) shapeDiffs++;
        for (let i = 0; i < Math.min(got.length, want.length); i++) {
          rowsCompared++;
          const g = got[i] as LineageRow;
          const w = want[i] as LineageRow;
          if (!same(g, w)) shapeDiffs++;
          else if (!Object.is(g.latency_sum_ms, w.latency_sum_ms)) latencyBitDiffs++;
        }
        if (
          JSON.stringify(toLineageJson(buildLineage(got))) !==
          JSON.stringify(toLineageJson(buildLineage(want)))
        )
          jsonDiffs++;
      }
    }
    const lastHour = new Date(Math.floor(until.getTime() / H) * H).toISOString().slice(11, 16);
    process.stdout.write(`last hour ${lastHour} UTC checked (${scopes.length} scopes)\n`);
  }
  process.stdout.write(
    `${windows} answers (${rowsCompared} rows) against sumLineage: ${shapeDiffs} differ in rows, order, calls or errors; ${latencyBitDiffs} latency sums differ in their last bits; ${jsonDiffs} API answers (JSON) differ\n`,
  );

  // Times, in this process (no HTTP), the window ending now: sumLineage, the cache's first read
  // (the closed part summed and kept, plus the last hour) and its later reads (the last hour only).
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const p95 = (xs: number[]) =>
    [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))] ?? 0;
  const time = async (fn: () => Promise<unknown>) => {
    const t = performance.now();
    await fn();
    return performance.now() - t;
  };
  const until = new Date(now);
  const since = new Date(until.getTime() - hours * H);
  for (const scope of [null, projects[0]?.id ?? null]) {
    const sqlMs: number[] = [];
    const firstMs: number[] = [];
    const hitMs: number[] = [];
    for (let i = 0; i < reads; i++) {
      sqlMs.push(await time(() => sumLineage(db, scope, since, until)));
      const cache = new LineageCache(db);
      firstMs.push(await time(() => cache.sum(scope, since, until)));
      hitMs.push(await time(() => cache.sum(scope, since, until)));
    }
    const f = (xs: number[]) => `p50 ${median(xs).toFixed(2)} p95 ${p95(xs).toFixed(2)} ms`;
    process.stdout.write(
      `${hours} h, ${scope === null ? 'every project' : `project ${scope}`}: sumLineage ${f(sqlMs)}; cache first read ${f(firstMs)}; cache later reads ${f(hitMs)} (${reads} each)\n`,
    );
  }
  process.stdout.write(
    `load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}\n`,
  );
} finally {
  await store.close();
}
