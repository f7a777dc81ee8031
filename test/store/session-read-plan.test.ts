import { rmSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, type Db } from '../../src/store/db.ts';
import { openStore } from '../../src/store/open-store.ts';
import { ensureDayPartitions, listPartitions, partitionName } from '../../src/store/partitions.ts';
import { sessionSpansQuery } from '../../src/store/sessions-repo.ts';
import { insertSpans } from '../../src/store/spans-repo.ts';
import { StatsKeeper } from '../../src/store/stats-keeper.ts';
import type { Span } from '../../src/model/span.ts';
import { generateSpans } from '../../bench/read-data.ts';
import { backends } from '../helpers/backends.ts';
import { seededDataDir } from '../helpers/data-dir.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getJson, nativeSpan, postJson } from '../helpers/spans.ts';

/**
 * Item 13: reading one session must not walk every span. The server keeps planner statistics by
 * itself (nobody runs ANALYZE here), and the session-detail query has one index-served branch per
 * way a span belongs to a session.
 */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

function nodes(n: PlanNode): PlanNode[] {
  return [n, ...(n.Plans ?? []).flatMap(nodes)];
}

const SESSIONS = 150;
const PER_SESSION = 12;

describe.each(backends.filter((b) => b.available))('session detail reads on $name', (backend) => {
  let server: TestServer;
  beforeAll(async () => {
    // A store as a server first opens it (never analyzed), not a pooled one.
    server = await startTestServer(
      { ...(await backend.env()), SPYGLASS_RATE_LIMITS: 'off' },
      undefined,
      { fresh: true },
    );
    // First without statistics, as after a fresh start: the keeper is paused, and so is
    // PostgreSQL's autovacuum on spans (its first analyze is up to a minute away anyway).
    await server.services.stats.stop();
    if (backend.name === 'postgres') {
      // Autovacuum works on each day partition (the partitioned parent has none).
      for (const p of await listPartitions(server.services.store.db))
        await execute(
          server.services.store.db,
          sql`alter table ${sql.identifier(p)} set (autovacuum_enabled = false)`,
        );
    }
    const t0 = Date.now() - 3_600_000;
    const spans: Record<string, unknown>[] = [];
    for (let s = 0; s < SESSIONS; s++) {
      for (let i = 0; i < PER_SESSION; i++) {
        const start = new Date(t0 + s * 1000 + i * 10);
        const at = {
          started_at: start.toISOString(),
          ended_at: new Date(start.getTime() + 5).toISOString(),
        };
        // Every tenth session carries no session id: it is keyed by its trace id.
        spans.push(
          nativeSpan(
            s % 10 === 0
              ? { session_id: null, trace_id: `plan-t${s}`, ...at }
              : { session_id: `plan-s${s}`, trace_id: `plan-t${s}`, ...at },
          ),
        );
      }
    }
    for (let i = 0; i < spans.length; i += 600) {
      expect(
        (await postJson(`${server.httpUrl}/api/traces/spans`, spans.slice(i, i + 600))).status,
      ).toBe(202);
    }
    // A PGlite server runs initdb first: slow on a busy machine.
  }, 180_000);
  afterAll(async () => server?.dispose());

  async function explainSession(id: string): Promise<PlanNode[]> {
    const { rows } = await execute<{ 'QUERY PLAN': unknown }>(
      server.services.store.db,
      sql`explain (format json) ${sessionSpansQuery('default', id, 10_001)}`,
    );
    const raw = rows[0]?.['QUERY PLAN'];
    const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
    return nodes((doc[0] as { Plan: PlanNode }).Plan);
  }

  async function reltuples(): Promise<number> {
    const { rows } = await execute<{ reltuples: number | string }>(
      server.services.store.db,
      sql`select reltuples from pg_class where oid = to_regclass('spans')`,
    );
    return Number(rows[0]?.reltuples);
  }

  /**
   * spans is partitioned by day: a plan has one branch per partition, and each partition's index
   * is named after it. Map them to the parent's index; a sequential scan of an empty partition
   * (the days ahead, the default) reads nothing and is what the planner picks for it.
   */
  async function expectOnlySessionIndexes(all: PlanNode[]): Promise<void> {
    const { rows } = await execute<{ name: string; parent: string | null; empty: boolean }>(
      server.services.store.db,
      sql`select c.relname as name, p.relname as parent, pg_relation_size(c.oid) = 0 as empty from pg_class c
          left join pg_inherits i on i.inhrelid = c.oid left join pg_class p on p.oid = i.inhparent
          where c.relname like 'spans%'`,
    );
    const info = new Map(rows.map((r) => [r.name, r]));
    const scans = all.filter(
      (n) => n['Node Type'] === 'Seq Scan' && !info.get(n['Relation Name'] ?? '')?.empty,
    );
    expect(scans).toEqual([]);
    const parentIndex = (name: string) => info.get(name)?.parent ?? name;
    const indexes = new Set(
      all.flatMap((n) => (n['Index Name'] ? [parentIndex(n['Index Name'])] : [])),
    );
    expect([...indexes].sort()).toEqual(['spans_session_idx', 'spans_sessionless_trace_idx']);
    for (const n of all.filter((x) => x['Index Name']))
      expect(n['Index Cond']).toMatch(/session_id|trace_id/);
  }

  it('reads a session from the two session indexes even before any statistics exist', async () => {
    expect(await reltuples()).toBeLessThan(0);
    for (const id of ['plan-s77', 'plan-t70'])
      await expectOnlySessionIndexes(await explainSession(id));
  });

  it('gathers statistics by itself (nobody runs ANALYZE) and still reads from the session indexes', async () => {
    server.services.stats.start();
    await server.services.stats.hasStatistics('spans');
    expect(await reltuples()).toBeGreaterThan(0);
    for (const id of ['plan-s77', 'plan-t70'])
      await expectOnlySessionIndexes(await explainSession(id));
  });

  it('returns every span of a session, whether keyed by session id or by trace id', async () => {
    for (const id of ['plan-s77', 'plan-t70']) {
      const res = await getJson(`${server.httpUrl}/api/agents/sessions/${id}`);
      expect(res.status).toBe(200);
      expect(res.json.session.span_count).toBe(PER_SESSION);
      const starts = (res.json.spans as { started_at: string }[]).map((s) => s.started_at);
      expect(starts).toHaveLength(PER_SESSION);
      expect([...starts].sort()).toEqual(starts);
    }
  });
});

/** The tables ingest fills: spans and its rollups. */
const ROLLUPS = [
  'sessions',
  'session_tools',
  'lineage_hourly',
  'span_hourly',
  'span_daily',
] as const;

/**
 * A keeper (minimum interval one minute) on a copy of the migrated PGlite, with a clock the test
 * moves (`tick`), and the first group of `spans` generated spans in groups of 1,000.
 */
async function withKeeper(
  spans: number,
  test: (k: {
    db: Db;
    keeper: StatsKeeper;
    groups: Generator<Span[]>;
    tick(): void;
  }) => Promise<void>,
): Promise<void> {
  const dataDir = seededDataDir();
  const store = await openStore({ dataDir });
  try {
    let now = 1_000_000;
    // Looks only when the test asks (no quiet look after writes), and spans of a fixed past day,
    // all in the default partition: the day partitions' rule would otherwise depend on the hour.
    const keeper = new StatsKeeper(store.db, undefined, {
      now: () => now,
      minIntervalMs: 60_000,
      quietMs: 0,
    });
    const { groups } = generateSpans({
      spans,
      treeSessions: 1,
      end: new Date('2000-01-02T00:00:00Z'),
      groupSize: 1000,
    });
    await test({ db: store.db, keeper, groups, tick: () => (now += 60_000) });
    await keeper.stop();
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('statistics upkeep', () => {
  it('analyzes a table at once when it has none, then at most once per interval however fast spans arrive', async () => {
    await withKeeper(3000, async ({ db, keeper, groups, tick }) => {
      const spanRuns = () => keeper.analyses.count;
      // Spans with no statistics yet: the first write starts an analysis.
      await insertSpans(db, groups.next().value as Span[]);
      keeper.noteWritten(1000);
      // Every table the insert filled gets its first analysis; count once they all have.
      for (const table of ['spans', ...ROLLUPS] as const) await keeper.hasStatistics(table);
      const first = spanRuns();
      expect(first).toBeGreaterThan(0);
      // Doubling the table is well past the 10 % rule, but the interval has not passed.
      await insertSpans(db, groups.next().value as Span[]);
      keeper.noteWritten(1000);
      await keeper.check();
      expect(spanRuns()).toBe(first);
      tick();
      await keeper.check();
      expect(spanRuns()).toBeGreaterThan(first);
    });
  }, 120_000);

  it('analyzes a rollup table again for rows added, not for its rows updated by every commit', async () => {
    await withKeeper(1000, async ({ db, keeper, groups, tick }) => {
      const first = groups.next().value as Span[];
      await insertSpans(db, first);
      // The counters the keeper reads are flushed at most once a second: flushed now, the first
      // analysis counts from all the rows that exist (else their late count reads as new rows).
      await execute(db, sql`select pg_stat_force_next_flush()`);
      keeper.noteWritten(first.length);
      for (const table of ['spans', ...ROLLUPS] as const) await keeper.hasStatistics(table);
      const runs = (): Record<string, number> =>
        Object.fromEntries(['spans', ...ROLLUPS].map((t) => [t, keeper.runsByTable.get(t) ?? 0]));
      const afterFirst = runs();
      expect(Object.values(afterFirst).every((n) => n === 1)).toBe(true);
      // The next interval's spans land on the same sessions, tools, edges and hours: every rollup
      // row is updated three times over, none added. Only spans itself grew.
      for (const copy of [1, 2, 3]) {
        const again = first.map((sp) => ({ ...sp, spanId: `${sp.spanId}-${copy}` }));
        await insertSpans(db, again);
        keeper.noteWritten(again.length);
      }
      await execute(db, sql`select pg_stat_force_next_flush()`);
      tick();
      await keeper.check();
      expect(runs()).toEqual({ ...afterFirst, spans: 2 });
      // New sessions (and their tools) are new rollup rows: analyzed again.
      for (const copy of [1, 2, 3, 4, 5]) {
        const moved = first.map((sp) => ({
          ...sp,
          spanId: `${sp.spanId}-s${copy}`,
          sessionId: sp.sessionId === null ? null : `${sp.sessionId}-s${copy}`,
        }));
        await insertSpans(db, moved);
        keeper.noteWritten(moved.length);
      }
      await execute(db, sql`select pg_stat_force_next_flush()`);
      tick();
      await keeper.check();
      expect(runs()).toMatchObject({ sessions: 2, session_tools: 2, spans: 3 });
    });
  }, 120_000);

  it("analyzes a day's partition alone when it outgrows its own statistics, the whole table not", async () => {
    await withKeeper(4000, async ({ db, keeper, groups }) => {
      // A load in time order: yesterday's spans (the default partition), then a few of today's,
      // analyzed; then today's partition fills while the whole table not yet quadruples.
      await ensureDayPartitions(db, new Date(), 1);
      const today = partitionName(new Date());
      const all = [...groups].flat();
      const at = (sp: Span, i: number): Span => ({
        ...sp,
        startedAt: new Date(Date.UTC(2000, 0, 1) + i * 1000),
      });
      const now = new Date();
      const todayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
      const inToday = (sp: Span, i: number): Span => ({
        ...sp,
        startedAt: new Date(todayStart + (i % 3_600_000)),
      });
      const first = [...all.slice(0, 1500).map(at), ...all.slice(1500, 1520).map(inToday)];
      await insertSpans(db, first);
      keeper.noteWritten(first.length);
      await keeper.hasStatistics('spans');
      await keeper.check();
      const planner = async () => {
        const { rows } = await execute<{ n: number | string }>(
          db,
          sql`select reltuples as n from pg_class where relname = ${today}`,
        );
        return Number(rows[0]?.n);
      };
      expect(await planner()).toBeLessThan(100);
      const spanRuns = keeper.runsByRelation.get('spans') ?? 0;
      const rest = all.slice(1520, 4000).map(inToday);
      await insertSpans(db, rest);
      keeper.noteWritten(rest.length);
      await keeper.check();
      // Within the interval, the whole table (about 2.7 times its analyzed size) is not analyzed
      // again; today's partition (from 20 spans to 2,500) is, alone.
      expect(keeper.runsByRelation.get('spans')).toBe(spanRuns);
      expect(keeper.runsByRelation.get(today)).toBe(1);
      expect(await planner()).toBeGreaterThan(2000);
    });
  }, 120_000);

  it('in a quiet look (writes stopped), analyzes spans at twice the size its statistics describe', async () => {
    await withKeeper(3000, async ({ db, keeper, groups }) => {
      const first = groups.next().value as Span[];
      await insertSpans(db, first);
      keeper.noteWritten(first.length);
      await keeper.hasStatistics('spans');
      await keeper.check();
      const runs = keeper.runsByRelation.get('spans') ?? 0;
      for (const group of [groups.next().value, groups.next().value] as Span[][]) {
        await insertSpans(db, group);
        keeper.noteWritten(group.length);
      }
      // Three times its statistics' size, within the interval: not while writes go on…
      await keeper.check();
      expect(keeper.runsByRelation.get('spans')).toBe(runs);
      // … but once they stop.
      await keeper.check(true);
      expect(keeper.runsByRelation.get('spans')).toBe(runs + 1);
    });
  }, 120_000);

  it('while spans keep coming, analyzes the partition that grew alone, and the whole table at the quiet look', async () => {
    await withKeeper(6000, async ({ db, keeper, groups }) => {
      // Every span of a fixed past day: all in the default partition, as a load into today's.
      const first = groups.next().value as Span[];
      await insertSpans(db, first);
      keeper.noteWritten(first.length);
      await keeper.hasStatistics('spans');
      await keeper.check();
      const runs = () => ({
        whole: keeper.runsByRelation.get('spans') ?? 0,
        partition: keeper.runsByRelation.get('spans_default') ?? 0,
      });
      const before = runs();
      for (const group of groups) {
        await insertSpans(db, group);
        keeper.noteWritten(group.length);
      }
      // Six times its statistics' size within the interval: the partition is analyzed, alone
      // (ANALYZE of spans would sample the same rows twice: as the whole and as the partition)…
      await keeper.check();
      expect(runs()).toEqual({ whole: before.whole, partition: before.partition + 1 });
      const { rows } = await execute<{ n: number | string }>(
        db,
        sql`select reltuples as n from pg_class where relname = 'spans_default'`,
      );
      expect(Number(rows[0]?.n)).toBeGreaterThan(5000);
      // … and once the writes stop, the whole table, whose own statistics describe 1,000 spans.
      await keeper.check(true);
      expect(runs()).toEqual({ whole: before.whole + 1, partition: before.partition + 1 });
    });
  }, 120_000);
});
