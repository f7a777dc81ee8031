import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../src/store/open-store.ts';
import { seedPglite } from './data-dir.ts';

/**
 * PGlite stores kept open across the test files of one vitest worker (vitest.config.ts runs files
 * one after another in a process), each emptied back to the migrated template's contents when
 * closed. Opening a PGlite store (a copy of the template, a database thread, PGlite's start) costs
 * about half a second of CPU; a suite opening two hundred of them spent a quarter of its CPU there.
 *
 * What a store given back is reset to: every table that holds a row emptied (`TRUNCATE`), every
 * sequence used restarted, and the rows the migrations put in (the default project, the settings row) written back; the session's
 * settings, temporary tables, advisory locks and listeners dropped; the statistics counters reset.
 * A store whose relations changed (a test made or dropped a partition or table), or that fails its
 * reset, is closed for real instead. Tests that need the embedded database as a server first opens
 * it (start-up, data directories, restarts, plans from fresh statistics) open their own with
 * `openStore`, `startTestServer({ SPYGLASS_DATA_DIR })` or `startInProcessApp({}, { fresh: true })`.
 */
interface Pooled {
  store: Store;
  dataDir: string;
  /** The relations a store has when opened: a store that differs is not reused. */
  relations: string;
  /** Empties every table (partitions included) that holds a row, and the template's. */
  empty: string;
  /** The statements that write the template's rows back. */
  restore: string;
}

const idle: Pooled[] = [];

/** A PGlite store with the migrated template's contents: from the pool, or opened. */
export async function pooledPgliteStore(): Promise<Store> {
  const pooled = idle.pop() ?? (await openPooled());
  let given = false;
  return {
    ...pooled.store,
    close: async () => {
      if (given) return;
      given = true;
      await giveBack(pooled);
    },
  };
}

async function openPooled(): Promise<Pooled> {
  const dataDir = seedPglite(mkdtempSync(join(tmpdir(), 'spyglass-pooled-')));
  const store = await openStore({ dataDir });
  try {
    const leaves = (await store.client.unsafe<{ name: string }[]>(LEAF_TABLES)).map((r) => r.name);
    const tables = [];
    for (const name of leaves) {
      const [row] = await store.client.unsafe<{ rows: unknown[] | null }[]>(
        `select json_agg(t) as rows from ${name} t`,
      );
      if (row?.rows) tables.push({ name, rows: row.rows });
    }
    const restore = tables
      .map(
        (t) =>
          `insert into ${t.name} select * from json_populate_recordset(null::${t.name}, ${literal(JSON.stringify(t.rows))});`,
      )
      .join('\n');
    const array = (names: string[]) => `array[${names.map(literal).join(', ')}]::text[]`;
    // One statement in the reset's transaction: what it finds empty is what it leaves.
    const empty = `do $$ declare t text; found boolean; begin
      foreach t in array ${array(leaves)} loop
        execute format('select exists (select 1 from %s)', t) into found;
        if found or t = any(${array(tables.map((x) => x.name))}) then
          execute format('truncate %s cascade', t);
        end if;
      end loop; end $$`;
    return { store, dataDir, relations: await relations(store), empty, restore };
  } catch (err) {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Empties the tables a test wrote to (a TRUNCATE gives each table and index a new file: all 42
 * tables and 127 indexes cost ~170 ms of CPU a reset, the few a test touches a fraction of it),
 * writes the template's rows back and restarts every sequence that was used.
 */
async function giveBack(p: Pooled): Promise<void> {
  try {
    await p.store.client
      .unsafe(
        `begin; ${p.empty};\n${p.restore}\n${RESTART_SEQUENCES}; commit;
         reset all; discard temp; select pg_advisory_unlock_all(); unlisten *; select pg_stat_reset();`,
      )
      .simple();
    if ((await relations(p.store)) !== p.relations) throw new Error('relations changed');
    idle.push(p);
  } catch {
    await p.store.close().catch(() => {});
    rmSync(p.dataDir, { recursive: true, force: true });
  }
}

/** Every table of the public schema that holds rows: plain tables and partitions. */
const LEAF_TABLES = `
  select format('%I.%I', n.nspname, c.relname) as name
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = 'public' and c.relkind = 'r'
   order by 1`;

/** As TRUNCATE's RESTART IDENTITY, for every sequence used since (tables emptied or not). */
const RESTART_SEQUENCES = `
  select setval(format('%I.%I', schemaname, sequencename), start_value, false)
    from pg_sequences where schemaname = 'public' and last_value is not null`;

async function relations(store: Store): Promise<string> {
  const rows = await store.client.unsafe<{ r: string }[]>(
    `select string_agg(format('%s:%s', c.relname, c.relkind), ',' order by c.relname) as r
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public'`,
  );
  return rows[0]?.r ?? '';
}

const literal = (s: string): string => `'${s.replace(/'/g, "''")}'`;
