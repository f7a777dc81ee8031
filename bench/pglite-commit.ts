/**
 * PGlite group-commit cost, in-process (no HTTP): the writer's insertSpans() from src into an
 * on-disk PGlite, per group size, and what PGlite options change (shared_buffers, relaxed
 * durability). Answers "how much of a commit is fixed cost" and "what does PGlite cost in RSS".
 *
 *   node --import tsx bench/pglite-commit.ts [--rows 20000] [--groups 25,100,400,2000,5000]
 *
 * Each variant runs in its own child process (RSS is per process and never shrinks).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import type { Span } from '../src/model/span.ts';
import type { Db } from '../src/store/db.ts';
import * as schema from '../src/store/schema.ts';
import { insertSpans } from '../src/store/spans-repo.ts';
import { batchShapes, rowSpans } from './payloads.ts';

const MIGRATIONS = resolve(dirname(fileURLToPath(import.meta.url)), '../drizzle');

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '20000' },
    groups: { type: 'string', default: '25,100,400,2000,5000' },
    variant: { type: 'string' },
    dir: { type: 'string' },
    init: { type: 'boolean', default: false },
  },
});
const totalRows = Number(values.rows);
const groups = (values.groups ?? '').split(',').map(Number);

const rssMb = () =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;

const variants: { name: string; options: PGliteOptions }[] = [
  { name: 'defaults (as src/store/open-store.ts)', options: {} },
  { name: 'relaxedDurability: true', options: { relaxedDurability: true } },
  {
    name: "postgresqlconf: ['shared_buffers=32MB']",
    options: { postgresqlconf: ['shared_buffers=32MB'] },
  },
];

const t0 = Date.now() - 3600_000;
if (values.variant === undefined) {
  // Each variant in its own process, so RSS figures are not mixed up with the previous one's.
  console.log(
    `PGlite insertSpans() from src, up to ${totalRows} rows per group size, on-disk data dir (initialised before timing)`,
  );
  console.log('variant                                   group   rows/s  ms/commit  RSS MB after');
  for (let i = 0; i < variants.length; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'spyglass-pglite-bench-'));
    try {
      // initdb + migrations in a throwaway process, so the measured one is a normal restart.
      for (const phase of [
        ['--init'],
        ['--rows', String(totalRows), '--groups', groups.join(',')],
      ]) {
        const r = spawnSync(
          process.execPath,
          [
            ...process.execArgv,
            fileURLToPath(import.meta.url),
            '--variant',
            String(i),
            '--dir',
            dir,
            ...phase,
          ],
          { stdio: 'inherit', timeout: 600_000 },
        );
        if (r.status !== 0) {
          console.log(`variant ${i} failed (${r.status ?? r.signal})`);
          break;
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
} else {
  await runVariant(
    variants[Number(values.variant)] as (typeof variants)[number],
    values.dir as string,
    values.init,
  );
}

async function runVariant(v: (typeof variants)[number], dir: string, init: boolean): Promise<void> {
  if (init) {
    const pg = await PGlite.create(dir, v.options);
    await migrate(drizzle(pg, { schema }), { migrationsFolder: MIGRATIONS });
    await pg.close();
    return;
  }
  const opened = performance.now();
  const pg = await PGlite.create(dir, v.options);
  const db = drizzle(pg, { schema }) as unknown as Db;
  console.log(
    `${v.name.padEnd(40)}   open ${(performance.now() - opened).toFixed(0).padStart(5)} ms ${''.padStart(10)} ${rssMb().toFixed(0).padStart(13)}`,
  );
  let base = 1;
  for (const group of groups) {
    const shapes = batchShapes(group);
    let rows = 0;
    let commits = 0;
    const start = performance.now();
    while (rows < totalRows && performance.now() - start < 30_000) {
      await insertSpans(db, rowSpans(shapes, base, t0) as unknown as Span[]);
      base += group;
      rows += group;
      commits++;
    }
    const ms = performance.now() - start;
    console.log(
      `${v.name.padEnd(40)} ${String(group).padStart(6)} ${Math.round((rows / ms) * 1000)
        .toString()
        .padStart(8)} ${(ms / commits).toFixed(1).padStart(10)} ${rssMb().toFixed(0).padStart(13)}`,
    );
  }
  await pg.close();
}
