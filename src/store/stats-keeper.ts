import type { Logger } from 'pino';
import { sql } from 'drizzle-orm';
import { execute, type Db } from './db.ts';

/** The tables the read paths plan against; the planner needs current statistics on each. */
export const HOT_TABLES = [
  'spans',
  'sessions',
  'session_tools',
  'lineage_hourly',
  'lineage_blocks',
  'span_hourly',
  'span_daily',
  'health_results',
  'drift_events',
  'audit_logs',
] as const;

export interface StatsKeeperOptions {
  /** How often the keeper looks for stale statistics without being asked. */
  everyMs: number;
  /** Spans written between two looks, once every table has statistics. */
  checkEverySpans: number;
  /** A table with statistics is analyzed again at most this often: ANALYZE costs the same at any size. */
  minIntervalMs: number;
  /**
   * Statistics target for the keeper's ANALYZE (it samples 300 × target rows); undefined = the
   * server's default (100). PGlite reads each sampled page through its virtual file system while
   * ingest waits, so it uses a smaller sample.
   */
  statisticsTarget?: number | undefined;
  /**
   * Spans written, then none for this long: the keeper looks once more, with the quiet growth
   * rule (QUIET_GROWTH). 0 = no quiet look.
   */
  quietMs: number;
  now: () => number;
}

/**
 * Columns the reads filter, join or sort spans by. Statistics on the payload columns (arguments,
 * results, LLM text) serve no plan and take half the time of analyzing spans.
 */
const SPAN_COLUMNS = [
  'project_id',
  'session_id',
  'trace_id',
  'started_at',
  'agent_name',
  'server_name',
  'tool_name',
  'span_type',
  'status',
];

/**
 * Rollup tables: every commit group updates their rows in place (counts, last times), and an update
 * counts as a change in PostgreSQL's `n_mod_since_analyze`, so by that measure each was due again
 * every interval under steady ingest (118 runs, 60 % of a 1,000,000-span load's time on PGlite,
 * docs/benchmarks.md). What their plans depend on is which keys exist: for them the keeper counts
 * rows inserted and deleted since its last ANALYZE instead.
 */
const ROLLUP_TABLES: ReadonlySet<string> = new Set([
  'sessions',
  'session_tools',
  'lineage_hourly',
  'lineage_blocks',
  'span_hourly',
  'span_daily',
]);

const DEFAULTS: StatsKeeperOptions = {
  everyMs: 60_000,
  checkEverySpans: 10_000,
  minIntervalMs: 60_000,
  quietMs: 1_000,
  now: Date.now,
};

/**
 * A table or partition this many times the pages its statistics describe is analyzed interval or
 * not: it can happen only log4(size) times in its life.
 */
const GROWTH = 4;
/**
 * The same rule for spans and its partitions (and QUIET_TABLES) in a quiet look (spans written, then none for
 * `quietMs`): twice, so the reads after a load plan with statistics of at least half of what it
 * wrote (the spans reads choose between its indexes by them; the rollups' reads planned alike with
 * statistics of a third of their rows, docs/benchmarks.md "reads right after a load"). A quiet
 * look comes only at a pause in the writes, and each analysis it starts needs spans or a partition
 * at twice its pages: log2(size) runs at most in the table's life beyond the interval's.
 */
const QUIET_GROWTH = 2;
/**
 * The tables the quiet rule applies to: spans, and lineage's rollups, whose read right after a load
 * scanned lineage_hourly whole with statistics of half its rows (the same plan 90 s later used its
 * index; docs/benchmarks.md, quiet-machine runs after the lineage round). The other rollups keep
 * GROWTH: twice for every table doubled the ANALYZE runs of a slow load on PostgreSQL (26 against 13).
 */
const QUIET_TABLES: ReadonlySet<string> = new Set(['spans', 'lineage_hourly', 'lineage_blocks']);
/** Fewer pages than this count as this many in the growth rules (a table of a few rows grows fast). */
const MIN_PAGES = 8;

interface TableState {
  name: string;
  reltuples: number;
  mods: number;
  /** Rows inserted plus rows deleted since the statistics were reset (never falls). */
  rowChanges: number;
  pages: boolean;
  /** Pages when last analyzed (pg_class.relpages), and now. */
  relpages: number;
  pagesNow: number;
  /**
   * The partitions (of a partitioned table) with statistics, each with its pages now over the
   * pages its statistics describe (at least MIN_PAGES).
   */
  leaves: { name: string; growth: number }[];
}

/**
 * Keeps planner statistics current (ANALYZE), on both back ends. The embedded database has no
 * autovacuum, and PostgreSQL's first automatic analyze comes only after its naptime: without
 * statistics a read may take a plan that walks every span. A table is analyzed when it holds rows
 * but was never analyzed (at once), or when more than 50 rows + 10 % of it changed since
 * (autovacuum's rule; for the rollup tables, rows inserted or deleted: see ROLLUP_TABLES), at most once per `minIntervalMs` per table unless it is four times the size (in
 * pages) it had when last analyzed. A partition (spans has one per day) four times the pages its
 * own statistics describe is analyzed alone, at once: a load in time order fills today's partition
 * last, so the whole table may have grown twofold while today's went from a few pages to most of it.
 * While spans keep coming within the interval, a partitioned table grown past the rule by some of
 * its partitions gets those analyzed alone; the whole table at the interval or the next quiet look.
 * It looks at start, every `everyMs`, on the first spans written to an unanalyzed table, after
 * every `checkEverySpans` spans, and once when spans stop coming for `quietMs` (a quiet look, where
 * twice the pages is enough: the reads right after a load get statistics of the whole load); one
 * table at a time, skipping a table another ANALYZE holds. ANALYZE reads a bounded sample
 * (300 × statistics target rows), so one run costs the same however large the table, and at most one run per table
 * per interval however fast spans arrive: ingest on PGlite (one statement at a time) waits at most
 * one table's sample, a bounded share of the time.
 */
export class StatsKeeper {
  private readonly opts: StatsKeeperOptions;
  private timer: NodeJS.Timeout | null = null;
  private first: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private written = 0;
  /** performance.now() of the last noteWritten, and the timer that waits for a pause after it. */
  private lastWriteAt = 0;
  private quietTimer: NodeJS.Timeout | undefined;
  /** The pass under way, or asked for next, is a quiet look. */
  private quiet = false;
  /**
   * Spans reported written since spans was last analyzed. The server's own counter
   * (n_mod_since_analyze) lags: a backend flushes it at most once a second, and PGlite's single
   * backend may not flush it until it is idle, so what ingest reported counts too.
   */
  private spansSinceAnalyze = 0;
  private unanalyzed = new Set<string>(HOT_TABLES);
  private readonly waiters = new Map<string, (() => void)[]>();
  private readonly lastRun = new Map<string, number>();
  /** A table's pages when this keeper last analyzed it whole (not one of its partitions alone). */
  private readonly wholePages = new Map<string, number>();
  /** A rollup table's rowChanges when this keeper last analyzed it (0 before: since the reset). */
  private readonly rowChangesAtRun = new Map<string, number>();
  /** ANALYZE statements run so far and their time (benchmarks report it). */
  readonly analyses = { count: 0, totalMs: 0, maxMs: 0 };
  /** ANALYZE statements run so far, by table (a partition's counted as its table's). */
  readonly runsByTable = new Map<string, number>();
  /** … and by the relation analyzed: a table, or one of its partitions. */
  readonly runsByRelation = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly logger?: Logger,
    opts: Partial<StatsKeeperOptions> = {},
  ) {
    this.opts = { ...DEFAULTS, ...opts };
  }

  /** Looks now (or after `firstAfterMs`), then every `everyMs`. */
  start(firstAfterMs = 0): void {
    this.stopped = false;
    if (this.timer) clearInterval(this.timer);
    clearTimeout(this.first);
    if (firstAfterMs > 0) this.first = setTimeout(() => void this.check(), firstAfterMs).unref();
    else void this.check();
    this.timer = setInterval(() => void this.check(), this.opts.everyMs);
    this.timer.unref();
  }

  /** Called after spans are committed; never waits for the analysis it may start. */
  noteWritten(spans: number): void {
    this.written += spans;
    this.spansSinceAnalyze += spans;
    this.lastWriteAt = performance.now();
    if (this.quietTimer === undefined && this.opts.quietMs > 0 && !this.stopped)
      this.waitForQuiet(this.opts.quietMs);
    if (this.unanalyzed.has('spans') || this.written >= this.opts.checkEverySpans)
      void this.check();
  }

  /**
   * Looks for stale statistics and analyzes those tables; concurrent calls share one pass. A quiet
   * look (`quiet`, what the pause after writes starts) applies QUIET_GROWTH instead of GROWTH.
   */
  check(quiet = false): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (quiet) this.quiet = true;
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        this.written = 0;
        const isQuiet = this.quiet;
        this.quiet = false;
        await this.pass(isQuiet).catch((err: unknown) =>
          this.logger?.warn({ err: (err as Error).message }, 'statistics upkeep failed'),
        );
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** One timer per burst of writes: when it fires, it waits out the rest of the pause or looks. */
  private waitForQuiet(ms: number): void {
    this.quietTimer = setTimeout(() => {
      this.quietTimer = undefined;
      const idle = performance.now() - this.lastWriteAt;
      if (idle < this.opts.quietMs) this.waitForQuiet(this.opts.quietMs - idle);
      else void this.check(true);
    }, ms).unref();
  }

  /** Resolves once `table` has planner statistics (by this keeper or by autovacuum). */
  hasStatistics(table: (typeof HOT_TABLES)[number]): Promise<void> {
    if (!this.unanalyzed.has(table)) return Promise.resolve();
    return new Promise((resolve) =>
      this.waiters.set(table, [...(this.waiters.get(table) ?? []), resolve]),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    clearTimeout(this.first);
    clearTimeout(this.quietTimer);
    this.quietTimer = undefined;
    await this.running;
  }

  private async pass(quiet: boolean): Promise<void> {
    for (const t of await this.tableStates()) {
      if (this.stopped) return;
      const growth = quiet && QUIET_TABLES.has(t.name) ? QUIET_GROWTH : GROWTH;
      const never = t.reltuples < 0;
      const mods =
        t.name === 'spans'
          ? Math.max(t.mods, this.spansSinceAnalyze)
          : ROLLUP_TABLES.has(t.name)
            ? rowChangesSince(t.rowChanges, this.rowChangesAtRun.get(t.name) ?? 0)
            : t.mods;
      const due =
        this.opts.now() - (this.lastRun.get(t.name) ?? -Infinity) >= this.opts.minIntervalMs;
      // A table four times the size its statistics describe (e.g. 5,000 spans analyzed, then
      // 100,000 loaded within the interval) is analyzed without waiting: that happens only
      // log4(size) times, and until then estimates from the small sample can pick other plans.
      // A quiet look measures a partitioned table against its size at its own last analysis (its
      // partitions may have been analyzed alone since, see below).
      const since = quiet
        ? Math.min(t.relpages, this.wholePages.get(t.name) ?? t.relpages)
        : t.relpages;
      const grown = !never && t.pagesNow >= growth * Math.max(since, MIN_PAGES);
      const overdue = mods > 50 + 0.1 * Math.max(0, t.reltuples);
      // Partitions grown past the rule: spans are inserted, not updated, so pages are rows here.
      const grownLeaves = t.leaves.filter((l) => l.growth >= growth).map((l) => l.name);
      // While spans keep coming (not a quiet look) and the interval is not up, a partitioned table
      // grown by some of its partitions gets those analyzed alone: ANALYZE of the partitioned table
      // samples the whole (its own statistics) and then every partition on its own, so a load into
      // one partition paid two samples of the same rows per run (docs/benchmarks.md, target 1's
      // first cell). The whole table's statistics follow at the interval or the next quiet look.
      const leavesOnly = !never && !due && !quiet && grown && overdue && grownLeaves.length > 0;
      const stale = (never && t.pages) || ((due || grown) && overdue && !leavesOnly);
      // The whole table's statistics hold, but a partition may have outgrown its own: those
      // partitions alone.
      if (!stale && !never && grownLeaves.length > 0) await this.analyze(t.name, grownLeaves);
      if (stale) {
        this.lastRun.set(t.name, this.opts.now());
        this.rowChangesAtRun.set(t.name, t.rowChanges);
        this.wholePages.set(t.name, t.pagesNow);
        if (t.name === 'spans') this.spansSinceAnalyze = 0;
        await this.analyze(t.name, [t.name]);
      }
      if (stale || !never) this.markAnalyzed(t.name);
    }
  }

  /** ANALYZE of `relations` (the table, or some of its partitions), counted as runs of `table`. */
  private async analyze(table: string, relations: string[]): Promise<void> {
    for (const relation of relations) {
      if (this.stopped) return;
      this.runsByTable.set(table, (this.runsByTable.get(table) ?? 0) + 1);
      this.runsByRelation.set(relation, (this.runsByRelation.get(relation) ?? 0) + 1);
      const started = performance.now();
      const columns =
        table === 'spans'
          ? sql` (${sql.join(
              SPAN_COLUMNS.map((c) => sql.identifier(c)),
              sql`, `,
            )})`
          : sql``;
      const analyze = sql`analyze (skip_locked) ${sql.identifier(relation)}${columns}`;
      const target = this.opts.statisticsTarget;
      if (target === undefined) await execute(this.db, analyze);
      else {
        await this.db.transaction(async (tx) => {
          await tx.execute(sql.raw(`set local default_statistics_target = ${Math.trunc(target)}`));
          await tx.execute(analyze);
        });
      }
      const ms = performance.now() - started;
      this.analyses.count++;
      this.analyses.totalMs += ms;
      this.analyses.maxMs = Math.max(this.analyses.maxMs, ms);
      this.logger?.debug({ table: relation, ms: Math.round(ms) }, 'statistics refreshed');
    }
  }

  /**
   * Each table's state summed over its leaf partitions (spans is partitioned by day; the parent
   * has no pages nor write counters of its own). A table counts as never analyzed while a leaf
   * holding pages has no statistics (a new day's partition), or no leaf has any. ANALYZE on the
   * parent samples every partition and the whole, so it covers them all. The relations are listed
   * first and pg_class and the statistics counters read by oid: joining pg_class on "this table or
   * one of its leaves" ran pg_partition_tree for every pg_class row, and the pg_stat_user_tables view
   * computes every relation's counters before any join (its GROUP BY), together 0.4-1.4 s a look on
   * PGlite, which a server stopped during its first look waited for.
   */
  private async tableStates(): Promise<TableState[]> {
    const names = sql.join(
      HOT_TABLES.map((n) => sql`${n}`),
      sql`, `,
    );
    const { rows } = await execute<{
      name: string;
      reltuples: number | string;
      mods: number | string | null;
      row_changes: number | string | null;
      pages: boolean;
      relpages: number | string;
      pages_now: number | string;
      leaves: string | null;
    }>(
      this.db,
      sql`select t.name,
                 case when bool_and(c.reltuples < 0) or bool_or(c.reltuples < 0 and pg_relation_size(c.oid) > 0) then -1
                      else sum(greatest(c.reltuples, 0)) end as reltuples,
                 sum(pg_stat_get_mod_since_analyze(c.oid)) as mods,
                 sum(pg_stat_get_tuples_inserted(c.oid) + pg_stat_get_tuples_deleted(c.oid)) as row_changes,
                 bool_or(pg_relation_size(c.oid) > 0) as pages,
                 sum(greatest(c.relpages, 0)) as relpages,
                 sum(pg_relation_size(c.oid)) / current_setting('block_size')::int as pages_now,
                 string_agg(case when c.relispartition and c.reltuples >= 0
                                 then c.relname || ' ' || (pg_relation_size(c.oid)::float8
                                      / current_setting('block_size')::int
                                      / greatest(c.relpages, ${MIN_PAGES}))::text end, ',') as leaves
          from (select t.name, to_regclass(t.name) as relid from unnest(array[${names}]::text[]) as t(name)
                union
                select t.name, p.relid from unnest(array[${names}]::text[]) as t(name),
                       lateral pg_partition_tree(to_regclass(t.name)) as p where p.isleaf) as t
          join pg_class c on c.oid = t.relid and c.relkind <> 'p'
          group by t.name`,
    );
    return rows.map((r) => ({
      name: r.name,
      reltuples: Number(r.reltuples),
      mods: Number(r.mods ?? 0),
      rowChanges: Number(r.row_changes ?? 0),
      pages: r.pages,
      relpages: Number(r.relpages),
      pagesNow: Number(r.pages_now),
      leaves: (r.leaves ?? '')
        .split(',')
        .filter((l) => l !== '')
        .map((l) => {
          const [name, growth] = l.split(' ');
          return { name: name as string, growth: Number(growth) };
        }),
    }));
  }

  private markAnalyzed(name: string): void {
    this.unanalyzed.delete(name);
    for (const resolve of this.waiters.get(name) ?? []) resolve();
    this.waiters.delete(name);
  }
}

/** Rows changed since `atRun`; a counter below it was reset (pg_stat_reset): count from zero. */
const rowChangesSince = (now: number, atRun: number): number => (now >= atRun ? now - atRun : now);
