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
  now: Date.now,
};

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
}

/**
 * Keeps planner statistics current (ANALYZE), on both back ends. The embedded database has no
 * autovacuum, and PostgreSQL's first automatic analyze comes only after its naptime: without
 * statistics a read may take a plan that walks every span. A table is analyzed when it holds rows
 * but was never analyzed (at once), or when more than 50 rows + 10 % of it changed since
 * (autovacuum's rule; for the rollup tables, rows inserted or deleted: see ROLLUP_TABLES), at most once per `minIntervalMs` per table unless it is four times the size (in
 * pages) it had when last analyzed. It looks at start, every
 * `everyMs`, on the first spans written to an unanalyzed table, and after every `checkEverySpans`
 * spans; one table at a time, skipping a table another ANALYZE holds. ANALYZE reads a bounded sample
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
  /**
   * Spans reported written since spans was last analyzed. The server's own counter
   * (n_mod_since_analyze) lags: a backend flushes it at most once a second, and PGlite's single
   * backend may not flush it until it is idle, so what ingest reported counts too.
   */
  private spansSinceAnalyze = 0;
  private unanalyzed = new Set<string>(HOT_TABLES);
  private readonly waiters = new Map<string, (() => void)[]>();
  private readonly lastRun = new Map<string, number>();
  /** A rollup table's rowChanges when this keeper last analyzed it (0 before: since the reset). */
  private readonly rowChangesAtRun = new Map<string, number>();
  /** ANALYZE statements run so far and their time (benchmarks report it). */
  readonly analyses = { count: 0, totalMs: 0, maxMs: 0 };
  /** ANALYZE statements run so far, by table. */
  readonly runsByTable = new Map<string, number>();

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
    if (this.unanalyzed.has('spans') || this.written >= this.opts.checkEverySpans)
      void this.check();
  }

  /** Looks for stale statistics and analyzes those tables; concurrent calls share one pass. */
  check(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        this.written = 0;
        await this.pass().catch((err: unknown) =>
          this.logger?.warn({ err: (err as Error).message }, 'statistics upkeep failed'),
        );
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.running = null;
    });
    return this.running;
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
    await this.running;
  }

  private async pass(): Promise<void> {
    for (const t of await this.tableStates()) {
      if (this.stopped) return;
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
      const grown = !never && t.pagesNow >= 4 * Math.max(t.relpages, 8);
      const stale =
        (never && t.pages) || ((due || grown) && mods > 50 + 0.1 * Math.max(0, t.reltuples));
      if (stale) {
        this.lastRun.set(t.name, this.opts.now());
        this.rowChangesAtRun.set(t.name, t.rowChanges);
        this.runsByTable.set(t.name, (this.runsByTable.get(t.name) ?? 0) + 1);
        if (t.name === 'spans') this.spansSinceAnalyze = 0;
        const started = performance.now();
        const columns =
          t.name === 'spans'
            ? sql` (${sql.join(
                SPAN_COLUMNS.map((c) => sql.identifier(c)),
                sql`, `,
              )})`
            : sql``;
        const analyze = sql`analyze (skip_locked) ${sql.identifier(t.name)}${columns}`;
        const target = this.opts.statisticsTarget;
        if (target === undefined) await execute(this.db, analyze);
        else {
          await this.db.transaction(async (tx) => {
            await tx.execute(
              sql.raw(`set local default_statistics_target = ${Math.trunc(target)}`),
            );
            await tx.execute(analyze);
          });
        }
        const ms = performance.now() - started;
        this.analyses.count++;
        this.analyses.totalMs += ms;
        this.analyses.maxMs = Math.max(this.analyses.maxMs, ms);
        this.logger?.debug({ table: t.name, ms: Math.round(ms) }, 'statistics refreshed');
      }
      if (stale || !never) this.markAnalyzed(t.name);
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
    }>(
      this.db,
      sql`select t.name,
                 case when bool_and(c.reltuples < 0) or bool_or(c.reltuples < 0 and pg_relation_size(c.oid) > 0) then -1
                      else sum(greatest(c.reltuples, 0)) end as reltuples,
                 sum(pg_stat_get_mod_since_analyze(c.oid)) as mods,
                 sum(pg_stat_get_tuples_inserted(c.oid) + pg_stat_get_tuples_deleted(c.oid)) as row_changes,
                 bool_or(pg_relation_size(c.oid) > 0) as pages,
                 sum(greatest(c.relpages, 0)) as relpages,
                 sum(pg_relation_size(c.oid)) / current_setting('block_size')::int as pages_now
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
