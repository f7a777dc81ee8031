import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMigratedPgDatabase, pgAdminUrl } from '../helpers/backends.ts';
import { call, configFile } from '../helpers/auth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { nativeSpan, postJson } from '../helpers/spans.ts';

/**
 * One project's huge batches must not starve another's (issue 25 item 2). PostgreSQL lets the test
 * hold every commit (a lock on the spans table) while it fills the writer's queue, so what is
 * asserted is the order in which the queued requests are committed and answered, not timings.
 */
describe.runIf(pgAdminUrl !== null)(
  pgAdminUrl !== null
    ? 'a flooding project and its neighbour'
    : 'a flooding project (skipped: no PostgreSQL in this run)',
  () => {
    // One lane, so every request is one queue entry; groups of at most 5,000 spans.
    const config = configFile(
      'ingest:\n  commit_lanes: 1\n  max_commit_spans: 5000\n  max_queued_spans_per_project: 12000\n',
    );
    let server: TestServer;
    let url: string;
    let sql: postgres.Sql;

    beforeAll(async () => {
      url = await createMigratedPgDatabase();
      server = await startTestServer({
        SPYGLASS_DATABASE_URL: url,
        SPYGLASS_CONFIG: config.path,
        SPYGLASS_RATE_LIMITS: 'off',
      });
      for (const id of ['flood', 'victim'])
        expect(
          (await call(server.httpUrl, 'POST', '/api/projects', { body: { id, name: id } })).status,
        ).toBe(201);
      sql = postgres(url, { max: 2, onnotice: () => {} });
    });
    afterAll(async () => {
      await sql?.end({ timeout: 5 });
      await server?.dispose();
      config.remove();
    });

    const batch = (project: string, tag: string, n: number) =>
      Array.from({ length: n }, (_, i) =>
        nativeSpan({ project_id: project, span_id: `${tag}-${i}`, session_id: `${tag}-${i % 20}` }),
      );

    it("commits the neighbour's batch before the flood's backlog, and answers the flood's own excess with 429 + Retry-After", async () => {
      const writer = server.services.writer;
      // Hold every insert into spans until released.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      const lock = sql.begin(async (tx) => {
        await tx`lock table spans in share row exclusive mode`;
        locked();
        await held;
      });
      await isLocked;

      const answered: string[] = [];
      const send = (name: string, body: unknown[]) =>
        postJson(`${server.httpUrl}/api/traces/spans`, body).then((r) => {
          answered.push(name);
          return r;
        });
      // Four 3,000-span batches of the flooding project: the first is in a commit (held), the rest wait.
      const flood: Promise<Awaited<ReturnType<typeof postJson>>>[] = [];
      for (let i = 1; i <= 4; i++) {
        flood.push(send(`flood-${i}`, batch('flood', `f${i}`, 3000)));
        await expect.poll(() => writer.queuedFor('flood'), { timeout: 20_000 }).toBe(3000 * i);
      }
      // Its fifth would take it past its 12,000 queued spans: refused as its own backlog, not an outage.
      const refused = await postJson(
        `${server.httpUrl}/api/traces/spans`,
        batch('flood', 'f5', 3000),
      );
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.json.detail).toMatch(/has 12000 spans waiting for commit \(at most 12000\)/);

      // The neighbour arrives last, behind 12,000 queued spans of the flood.
      const victim = send('victim', batch('victim', 'v', 50));
      await expect.poll(() => writer.queuedFor('victim'), { timeout: 20_000 }).toBe(50);

      release();
      await lock;
      const replies = [...(await Promise.all(flood)), await victim];
      expect(replies.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
      expect(replies.map((r) => r.json)).toEqual([
        ...Array(4).fill({ accepted: 3000, duplicates: 0 }),
        { accepted: 50, duplicates: 0 },
      ]);
      // Fair queueing: the neighbour went into the group after the one in flight (at most
      // max_commit_spans of the flood), ahead of the flood's backlog, and was answered before the
      // flood's third and fourth batches. First come, first served committed 9,000 flood spans
      // first and answered it last. Each group is one transaction, so now() (ingested_at) tells them apart.
      const [order] = await sql<{ before: number; after: number }[]>`
      select count(*) filter (where ingested_at < v.at)::int as before, count(*) filter (where ingested_at > v.at)::int as after
      from spans, (select min(ingested_at) as at from spans where project_id = 'victim') v where project_id = 'flood'`;
      expect(order!.before).toBeLessThanOrEqual(5000);
      expect(order!.after).toBeGreaterThanOrEqual(12_000 - 5000);
      expect(answered.indexOf('victim')).toBeLessThan(answered.indexOf('flood-3'));
      expect(answered.indexOf('victim')).toBeLessThan(answered.indexOf('flood-4'));

      // Nothing acknowledged is missing, nothing refused was stored, and the queue is empty.
      const rows = await sql<
        { project_id: string; n: number }[]
      >`select project_id, count(*)::int as n from spans group by project_id order by project_id`;
      expect(rows.map((r) => [r.project_id, r.n])).toEqual([
        ['flood', 12_000],
        ['victim', 50],
      ]);
      expect(writer.pendingSpans).toBe(0);
      expect(writer.queuedFor('flood')).toBe(0);
    });

    it('admits a project again once its backlog is committed', async () => {
      expect(
        (await postJson(`${server.httpUrl}/api/traces/spans`, batch('flood', 'again', 3000))).json,
      ).toEqual({ accepted: 3000, duplicates: 0 });
    });
  },
);
