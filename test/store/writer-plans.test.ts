import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spanCommit } from '../../src/compose/ingest.ts';
import { beginEarly } from '../../src/store/early-transaction.ts';
import { openStore, type Store } from '../../src/store/open-store.ts';
import { warmWriter } from '../../src/store/warm-writer.ts';
import { createMigratedPgDatabase, pgAdminUrl } from '../helpers/backends.ts';
import { project } from '../helpers/repo-store.ts';
import { span } from '../helpers/spans.ts';
import { pooledPgliteStore } from '../helpers/store-pool.ts';

/**
 * The writer's connections on PostgreSQL (open-store.ts writerPool, early-transaction.ts
 * GENERIC_PLANS, warm-writer.ts): a pool of their own, warmed with the upsert prepared and on its
 * generic plan; every commit after runs that plan (no custom plan made), whichever form the group
 * takes; the reads' connections, and the writer's outside its transactions, keep PostgreSQL's
 * own choice. Nothing is written by the warm-up.
 */
const WRITERS = 2;

interface PlanRow {
  pid: number;
  app: string;
  mode: string;
  custom: number;
  generic: number;
}

/** One query on each of the writer's connections at once (postgres.js gives each its own idle one). */
const onEach = (store: Store, n: number) =>
  Promise.all(
    Array.from({ length: n }, async () => {
      const [row] = await store.writer.unsafe<PlanRow[]>(
        `select pg_backend_pid() as pid, current_setting('application_name') as app,
                current_setting('plan_cache_mode') as mode,
                coalesce(sum(custom_plans) filter (where statement like '%json_populate_recordset%'), 0)::int as custom,
                coalesce(sum(generic_plans) filter (where statement like '%json_populate_recordset%'), 0)::int as generic
           from pg_prepared_statements`,
      );
      return row as PlanRow;
    }),
  );

describe.runIf(pgAdminUrl !== null)("the writer's connections on PostgreSQL", () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({
      databaseUrl: await createMigratedPgDatabase(),
      dataDir: '',
      poolSize: 2,
      writerConnections: WRITERS,
    });
  }, 120_000);
  afterAll(async () => store?.close());

  const count = async (table: string) =>
    (await store.client.unsafe<{ n: number }[]>(`select count(*)::int as n from ${table}`))[0]?.n;

  it('are a pool of their own, warmed with the upsert on its generic plan, and the warm-up writes nothing', async () => {
    expect(store.writer).not.toBe(store.client);
    const r = await warmWriter(store.writer, WRITERS);
    expect(r).toEqual({ connections: WRITERS });
    const rows = await onEach(store, WRITERS);
    expect(new Set(rows.map((x) => x.pid)).size).toBe(WRITERS);
    for (const row of rows)
      // Outside a transaction the connection keeps PostgreSQL's own choice.
      expect(row).toMatchObject({ app: 'spyglass-writer', mode: 'auto', custom: 0, generic: 1 });
    for (const table of ['spans', 'sessions', 'session_tools', 'span_hourly', 'lineage_hourly'])
      expect(await count(table)).toBe(0);
  });

  it('commit every group in a transaction on the generic plan, by COPY and by the statement', async () => {
    const commit = spanCommit(store);
    const p = project('writer-plans');
    const t0 = new Date(Date.now() - 3_600_000);
    let n = 0;
    const group = (size: number) =>
      Array.from({ length: size }, () =>
        span(p, new Date(t0.getTime() + n++), {
          sessionId: `s${n % 7}`,
          traceId: `s${n % 7}`,
          spanType: n % 3 === 0 ? 'agent' : 'tool_call',
        }),
      );
    // 30 spans: the statement's form, in a transaction begun early as the writer's first attempt
    // (a retry's statement runs alone, on PostgreSQL's own choice); 150: COPY's, in a transaction
    // begun early and begun at commit (a retry's).
    const sizes = [30, 150, 30, 150, 30, 150, 150, 30];
    for (const [i, size] of sizes.entries()) {
      const spans = group(size);
      const early = size < 100 || i % 4 === 1 ? beginEarly(store.writer) : undefined;
      await early?.ready;
      expect(await commit.commit(spans, [commit.encode(spans)], early)).toBe('all');
    }
    expect(await count('spans')).toBe(n);
    const rows = await onEach(store, WRITERS);
    // Every run of the upsert on a connection's one generic plan (the warm-up's run included).
    expect(rows.reduce((s, x) => s + x.custom, 0)).toBe(0);
    expect(rows.reduce((s, x) => s + x.generic, 0)).toBe(WRITERS + sizes.length);
  });

  it("leave the reads' connections on PostgreSQL's own plan choice", async () => {
    const [row] = await store.client.unsafe<{ mode: string; app: string }[]>(
      `select current_setting('plan_cache_mode') as mode, current_setting('application_name') as app`,
    );
    expect(row?.mode).toBe('auto');
    expect(row?.app).not.toBe('spyglass-writer');
  });
});

describe('the writer on PGlite', () => {
  it('is the one client', async () => {
    const store = await pooledPgliteStore();
    try {
      expect(store.writer).toBe(store.client);
      expect(store.writerConnections).toBe(1);
    } finally {
      await store.close();
    }
  });
});
