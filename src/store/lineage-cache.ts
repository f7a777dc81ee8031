import type { Db } from './db.ts';
import {
  databaseCollation,
  lineageHourRows,
  lineageSpans,
  sumLineage,
  sumLineageHours,
  type LineageRow,
} from './lineage-repo.ts';

const HOUR_MS = 3_600_000;
/** Windows kept at once (the dashboard's 24 h, for every project and per project, and a few more). */
const MAX_ENTRIES = 4;
/**
 * A window with more distinct edges than this is not kept (its read sums in SQL as before): at
 * about 200 bytes an edge with its index, four entries hold at most ~8 MB. A day of 1,000,000
 * spans has about 530 (docs/benchmarks.md, target 5).
 */
const MAX_EDGES = 10_000;
/** sumLineage's `sum(calls)::int`: past this it fails, so the merged sum must not answer instead. */
const INT_MAX = 2_147_483_647;

/** Ends a write announced to the cache (LineageCache.writing, changing). */
export interface WriteDone {
  done(): void;
}

interface Entry {
  /** The hours it sums, from the one starting at `first` to the one starting at `last` (ms). */
  first: number;
  last: number;
  /** sumLineageHours' rows, in its order; never changed once kept. */
  rows: readonly LineageRow[];
  /** A row's index by its edge (`keyOf`). */
  index: Map<string, number>;
}

/** A read summing a window's closed part, not kept if a write touched its hours meanwhile. */
interface Pending {
  first: number;
  last: number;
  dirty: boolean;
}

/**
 * The lineage graph's closed part summed once (docs/benchmarks.md, target 5): for a window of
 * hours, the sum of every hour but the last is kept (per project scope and hour range), and each
 * read sums only the last hour's rows (normally the current hour, a few hundred) onto it, edge by
 * edge, after the rest (as sumLineage's SQL adds them when it reads the window in time order).
 *
 * Invalidation is exact, never by time: whatever writes lineage_hourly or lineage_blocks in this
 * process brackets the write, the writer's commit groups with the hours they touch (`writing`),
 * anything else (project deletion, retention) with `changing`. A kept sum holding a touched hour is
 * dropped when the write begins; none is kept or used for those hours until it is done, and a
 * sum read while they are written is not kept. So only a process that is the database's
 * one writer may use it: PGlite's (its data-dir lock), not PostgreSQL's, where other instances and
 * workers write and nothing tells this one which hours (compose/reads.ts createLineageCache).
 *
 * One per app (createServices builds it), never shared by module state.
 */
export class LineageCache {
  /** Least recently used first. */
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Set<Pending>();
  /** Writes begun and not yet done, each with the hours it touches. */
  private readonly active = new Set<{ holds: (x: { first: number; last: number }) => boolean }>();
  /** Whether `order by` compares text by code point (C or POSIX), once known. */
  private codePointOrder: Promise<boolean> | null = null;

  constructor(
    private readonly db: Db,
    private readonly limits: { maxEntries?: number; maxEdges?: number } = {},
  ) {}

  /**
   * sumLineage's rows for the window: the same rows in the same order with the same calls and
   * errors. Latency sums are float sums of the same values, the last hour's added after the rest:
   * they may differ from the statement's in their last bits, as the statement's own do with the
   * physical order its scans read (test/sessions/lineage-cache.test.ts; docs/benchmarks.md).
   */
  async sum(projectId: string | null, since: Date, until: Date): Promise<readonly LineageRow[]> {
    const { first, last } = lineageSpans(since, until);
    // One hour: nothing closed to keep.
    if (last <= first) return sumLineage(this.db, projectId, since, until);
    const closedLast = last - HOUR_MS;
    const key = `${projectId === null ? '*' : `p:${projectId}`}|${first}|${closedLast}`;
    let entry = this.entries.get(key);
    let open: LineageRow[];
    if (entry) {
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, entry);
      open = await lineageHourRows(this.db, projectId, last);
      // A write of its hours began meanwhile: the last hour read may hold part of it already.
      if (this.entries.get(key) !== entry) return sumLineage(this.db, projectId, since, until);
    } else {
      const pending: Pending = { first, last: closedLast, dirty: false };
      this.pending.add(pending);
      let closed: LineageRow[];
      try {
        [closed, open] = await Promise.all([
          sumLineageHours(this.db, projectId, first, closedLast),
          lineageHourRows(this.db, projectId, last),
        ]);
      } finally {
        this.pending.delete(pending);
      }
      entry = keep(first, closedLast, closed);
      if (
        !pending.dirty &&
        closed.length <= (this.limits.maxEdges ?? MAX_EDGES) &&
        ![...this.active].some((w) => w.holds(pending))
      ) {
        this.entries.set(key, entry);
        for (const k of this.entries.keys()) {
          if (this.entries.size <= (this.limits.maxEntries ?? MAX_ENTRIES)) break;
          this.entries.delete(k);
        }
      }
    }
    const merged = await this.merge(entry, open);
    return merged ?? sumLineage(this.db, projectId, since, until);
  }

  /**
   * A commit is about to write the rollup rows of these spans' hours (`startedAt`, as the rollups
   * bucket them); call `done()` once it has ended, committed or not. From now until then no kept
   * sum holding one of those hours is used or kept, and a read that used one meanwhile sums again.
   */
  writing(spans: readonly { startedAt: Date }[]): WriteDone {
    const hours: number[] = [];
    for (let i = 0; i < spans.length; i++) {
      const h =
        Math.floor((spans[i] as { startedAt: Date }).startedAt.getTime() / HOUR_MS) * HOUR_MS;
      if (!hours.includes(h)) hours.push(h);
    }
    return this.begin((x) => hours.some((h) => h >= x.first && h <= x.last));
  }

  /**
   * The lineage tables are about to change otherwise (a project deleted, retention): every kept
   * sum goes, and none is kept until `done()`.
   */
  changing(): WriteDone {
    return this.begin(() => true);
  }

  private begin(holds: (x: { first: number; last: number }) => boolean): WriteDone {
    const write = { holds };
    this.drop(holds);
    this.active.add(write);
    return {
      done: () => {
        this.active.delete(write);
        this.drop(holds);
      },
    };
  }

  private drop(holds: (x: { first: number; last: number }) => boolean): void {
    for (const [k, e] of this.entries) if (holds(e)) this.entries.delete(k);
    for (const p of this.pending) if (!p.dirty && holds(p)) p.dirty = true;
  }

  /** Sums kept now (tests). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The kept sums with the last hour's rows added, edge by edge in the rows' order (an edge's
   * projects in project order), as sumLineage's SQL adds them after the window's other rows. Null
   * when that cannot be the same answer: a sum past `int` (sumLineage fails there), or an edge new
   * in the last hour whose place in the order needs the database's collation, unless it is C.
   */
  private async merge(
    entry: Entry,
    open: readonly LineageRow[],
  ): Promise<readonly LineageRow[] | null> {
    if (open.length === 0) return entry.rows;
    const changed = new Map<number, LineageRow>();
    // Edges not in the kept sum, in the order of `open` (the database's).
    const added: LineageRow[] = [];
    let lastAddedKey = '';
    for (let i = 0; i < open.length; i++) {
      const o = open[i] as LineageRow;
      const k = keyOf(o);
      const at = entry.index.get(k);
      let r: LineageRow | undefined;
      if (at !== undefined) {
        r = changed.get(at);
        if (!r) changed.set(at, (r = { ...(entry.rows[at] as LineageRow) }));
      } else if (added.length > 0 && lastAddedKey === k) {
        r = added[added.length - 1];
      } else {
        added.push({ ...o });
        lastAddedKey = k;
        continue;
      }
      if (!r) continue;
      r.calls += o.calls;
      r.errors += o.errors;
      r.latency_sum_ms += o.latency_sum_ms;
      if (r.calls > INT_MAX || r.errors > INT_MAX) return null;
    }
    const rows = entry.rows;
    if (added.length === 0) {
      const out = new Array<LineageRow>(rows.length);
      for (let i = 0; i < rows.length; i++) out[i] = changed.get(i) ?? (rows[i] as LineageRow);
      return out;
    }
    if (!(await this.byCodePoint())) return null;
    // Both lists are in the database's order: merged as sorted lists.
    const out: LineageRow[] = [];
    let a = 0;
    for (let i = 0; i < rows.length; i++) {
      const r = changed.get(i) ?? (rows[i] as LineageRow);
      while (a < added.length && compareEdges(added[a] as LineageRow, r) < 0)
        out.push(added[a++] as LineageRow);
      out.push(r);
    }
    while (a < added.length) out.push(added[a++] as LineageRow);
    return out;
  }

  private byCodePoint(): Promise<boolean> {
    this.codePointOrder ??= databaseCollation(this.db).then(
      (c) => c === 'C' || c === 'POSIX',
      () => {
        this.codePointOrder = null;
        return false;
      },
    );
    return this.codePointOrder;
  }
}

function keep(first: number, last: number, rows: LineageRow[]): Entry {
  const index = new Map<string, number>();
  for (let i = 0; i < rows.length; i++) index.set(keyOf(rows[i] as LineageRow), i);
  return { first, last, rows, index };
}

/** An edge's identity: PostgreSQL text holds no NUL. */
const keyOf = (r: LineageRow) => `${r.edge_type}\u0000${r.source}\u0000${r.target}`;

/** `order by edge_type, source, target` under the C collation: by code point. */
function compareEdges(a: LineageRow, b: LineageRow): number {
  return (
    compareCodePoints(a.edge_type, b.edge_type) ||
    compareCodePoints(a.source, b.source) ||
    compareCodePoints(a.target, b.target)
  );
}

/** By Unicode code point (UTF-8 byte order), not by UTF-16 unit as `<` compares. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (0xD800-0xDFFF) is half of a code point above 0xFFFF: above every other unit.
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
