import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_ADMIN } from '../../src/auth/principal.ts';
import { toSessionTreeJson } from '../../src/model/session.ts';
import { SessionsService } from '../../src/sessions/sessions-service.ts';
import { READ_LIMITS, startReadWarmUp } from '../../src/startup/read-warm-up.ts';
import { execute } from '../../src/store/db.ts';
import { openStore, type Store } from '../../src/store/open-store.ts';
import { insertSpans } from '../../src/store/spans-repo.ts';
import { PLAN_RUNS, warmReads } from '../../src/store/warm-reads.ts';
import { createMigratedPgDatabase, pgAdminUrl } from '../helpers/backends.ts';
import { project } from '../helpers/repo-store.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { span } from '../helpers/spans.ts';
import { getJson } from '../helpers/spans.ts';
import { pooledPgliteStore } from '../helpers/store-pool.ts';

/**
 * The read warm-up (store/warm-reads.ts, startup/read-warm-up.ts): after it, every connection of
 * the pool holds the hot read statements prepared, the session tree's past its custom plans; it
 * stops when asked, ends quietly when the database is gone, and does nothing on PGlite.
 */
const silent = pino({ level: 'silent' });
const POOL = 4;
const t = (ms: number) => new Date(Date.now() - 3_600_000 + ms);

describe.runIf(pgAdminUrl !== null)('read warm-up on PostgreSQL', () => {
  let store: Store;
  const p = project();
  beforeAll(async () => {
    store = await openStore({
      databaseUrl: await createMigratedPgDatabase(),
      dataDir: '',
      poolSize: POOL,
    });
    await insertSpans(store.db, [
      span(p, t(0), { spanId: 'root', sessionId: 'warm-s', traceId: 'warm-t' }),
      span(p, t(1), { spanId: 'child', sessionId: 'warm-s', parentSpanId: 'root' }),
    ]);
  }, 120_000);
  afterAll(async () => store?.close());

  it('opens each connection of the pool and leaves the session tree statement planned on each', async () => {
    const r = await warmReads(store.db, { connections: POOL, limits: READ_LIMITS });
    expect(r.error).toBeUndefined();
    expect(r.finished).toBe(true);
    // Every statement once, the tree's spans PLAN_RUNS times, on each connection.
    expect(r.statements).toBe(POOL * (PLAN_RUNS + 8));
    // As many queries at once as the pool has idle connections: one on each.
    const seen = await Promise.all(
      Array.from({ length: POOL }, () =>
        store.client.unsafe<{ pid: number; custom: number; generic: number; texts: number }[]>(
          `select pg_backend_pid() as pid,
                  coalesce(max(custom_plans) filter (where statement like '%coalesce(%'), 0)::int as custom,
                  coalesce(max(generic_plans) filter (where statement like '%coalesce(%'), 0)::int as generic,
                  count(*)::int as texts
             from pg_prepared_statements`,
        ),
      ),
    );
    expect(new Set(seen.map(([row]) => row?.pid)).size).toBe(POOL);
    for (const [row] of seen) {
      // Five custom plans, then PostgreSQL's own choice: the generic plan from the sixth run.
      expect(row).toMatchObject({ custom: PLAN_RUNS - 1, generic: 1 });
      // The tree's spans, the session row in both forms, the spans lists and the sessions lists.
      expect(row?.texts).toBeGreaterThanOrEqual(8);
    }
  });

  it('answers the session tree with and without a project as before, byte for byte', async () => {
    const svc = new SessionsService(store.db);
    for (const projectId of [p, undefined]) {
      const want = JSON.stringify(
        toSessionTreeJson(await svc.tree(LOCAL_ADMIN, 'warm-s', projectId)),
      );
      expect((await svc.treeJson(LOCAL_ADMIN, 'warm-s', projectId)).toString('utf8')).toBe(want);
      expect(JSON.parse(want).spans[0].children).toHaveLength(1);
    }
  });

  it('sends nothing once stopped', async () => {
    const abort = new AbortController();
    abort.abort();
    expect(
      await warmReads(store.db, { connections: POOL, signal: abort.signal, limits: READ_LIMITS }),
    ).toEqual({
      statements: 0,
      finished: false,
    });
    // Stopped right after it starts: stop() waits for the statement in flight, then nothing more.
    const warmUp = startReadWarmUp(store, silent);
    await warmUp.stop();
    expect(await warmUp.done).toEqual({ statements: 0, finished: false });
  });

  it('ends quietly, never rejecting, when the database is gone', async () => {
    const url = await createMigratedPgDatabase();
    const gone = await openStore({ databaseUrl: url, dataDir: '', poolSize: POOL });
    try {
      const { default: postgres } = await import('postgres');
      const admin = postgres(pgAdminUrl as string, { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(`drop database "${new URL(url).pathname.slice(1)}" with (force)`);
      } finally {
        await admin.end({ timeout: 5 });
      }
      const r = await warmReads(gone.db, { connections: POOL, limits: READ_LIMITS });
      expect(r.finished).toBe(false);
      expect(r.error).toBeDefined();
      const warmUp = startReadWarmUp(gone, silent);
      expect((await warmUp.done)?.finished).toBe(false);
      await warmUp.stop();
    } finally {
      await gone.close();
    }
  });
});

describe.runIf(pgAdminUrl !== null)('a fresh server on PostgreSQL', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      SPYGLASS_DATABASE_URL: await createMigratedPgDatabase(),
      SPYGLASS_RATE_LIMITS: 'off',
      SPYGLASS_DATABASE_WARM_UP: 'true', // off by default in tests (test/helpers/server.ts)
    });
  }, 120_000);
  afterAll(async () => server?.dispose());

  it('answers a session tree, with and without a project, while or after its connections warm up', async () => {
    const p = project();
    await insertSpans(server.services.store.db, [
      span(p, t(0), { spanId: 'a', sessionId: 'fresh-s' }),
      span(p, t(1), { spanId: 'b', sessionId: 'fresh-s', parentSpanId: 'a' }),
    ]);
    for (const q of ['', `?project_id=${p}`]) {
      const res = await getJson(`${server.httpUrl}/api/agents/sessions/fresh-s${q}`);
      expect(res.status).toBe(200);
      expect(res.json.session.project_id).toBe(p);
      expect(res.json.spans.map((n: { span_id: string }) => n.span_id)).toEqual(['a']);
    }
  });

  it("opens the writer's connections and the reads' whole pool by itself once it listens", async () => {
    const { store } = server.services;
    // The writer's pool is named; the rest are the reads' (this query's own connection one of them).
    const open = async () => {
      const { rows } = await execute<{ writer: number; reads: number }>(
        store.db,
        sql`select count(*) filter (where application_name = 'spyglass-writer')::int as writer,
                   count(*) filter (where application_name <> 'spyglass-writer')::int as reads
            from pg_stat_activity where datname = current_database()`,
      );
      return rows[0];
    };
    await expect.poll(async () => (await open())?.writer).toBe(store.writerConnections);
    await expect
      .poll(async () => (await open())?.reads)
      .toBeGreaterThanOrEqual(store.readConnections);
  });
});

describe('read warm-up on PGlite', () => {
  it('does nothing: one connection, which the first reads warm', async () => {
    const store = await pooledPgliteStore();
    try {
      const warmUp = startReadWarmUp(store, silent);
      expect(await warmUp.done).toBeNull();
      await warmUp.stop();
    } finally {
      await store.close();
    }
  });
});
