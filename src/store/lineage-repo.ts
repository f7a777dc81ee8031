import { sql } from 'drizzle-orm';
import { execute, executePrepared, timestamptz, type Db } from './db.ts';

export interface LineageRow {
  edge_type: 'calls' | 'handoff' | 'run';
  source: string;
  target: string;
  calls: number;
  errors: number;
  latency_sum_ms: number;
}

const HOUR_MS = 3_600_000;
/** lineage_blocks' span (rollup-sql.ts LINEAGE_BLOCK_OF): 4 hours from a UTC multiple of 4. */
export const LINEAGE_BLOCK_MS = 4 * HOUR_MS;

/**
 * Which rows of the lineage rollups sum the hours from `since`'s to `until`'s (inclusive): the
 * whole 4-hour blocks inside them (from lineage_blocks, `blocks` [from, to)), and the hours before
 * the first block and after the last (from lineage_hourly, `[first, blocks.from)` and
 * `[blocks.to, last]`). Without a whole block, blocks is null and every hour is read.
 */
export function lineageSpans(
  since: Date,
  until: Date,
): { first: number; last: number; blocks: { from: number; to: number } | null } {
  const first = Math.floor(since.getTime() / HOUR_MS) * HOUR_MS;
  const last = Math.floor(until.getTime() / HOUR_MS) * HOUR_MS;
  const from = Math.ceil(first / LINEAGE_BLOCK_MS) * LINEAGE_BLOCK_MS;
  const to = Math.floor((last + HOUR_MS) / LINEAGE_BLOCK_MS) * LINEAGE_BLOCK_MS;
  return { first, last, blocks: from < to ? { from, to } : null };
}

/**
 * Edges summed over the lineage rollups between two instants (hour resolution): the window's whole
 * 4-hour blocks from lineage_blocks and the hours at its ends from lineage_hourly: for 24 h, 0.4-0.5
 * of the rows of its hours alone (docs/benchmarks.md, target 5). Both keys lead with the time.
 */
export async function sumLineage(
  db: Db,
  projectId: string | null,
  since: Date,
  until: Date,
): Promise<LineageRow[]> {
  const { first, last } = lineageSpans(since, until);
  return sumLineageHours(db, projectId, first, last);
}

/**
 * sumLineage over whole hours: from the hour starting at `first` to the one starting at `last`
 * (ms since the epoch, multiples of an hour), in the order `edge_type, source, target`.
 */
export async function sumLineageHours(
  db: Db,
  projectId: string | null,
  first: number,
  last: number,
): Promise<LineageRow[]> {
  const project = projectId === null ? sql`true` : sql`project_id = ${projectId}`;
  const { blocks } = lineageSpans(new Date(first), new Date(last));
  const hours = (from: number, to: number) =>
    sql`select edge_type, source, target, calls, errors, latency_sum_ms from lineage_hourly
        where hour >= ${timestamptz(from)} and hour <= ${timestamptz(to)} and ${project}`;
  const parts =
    blocks === null
      ? [hours(first, last)]
      : [
          sql`select edge_type, source, target, calls, errors, latency_sum_ms from lineage_blocks
              where block >= ${timestamptz(blocks.from)} and block < ${timestamptz(blocks.to)} and ${project}`,
          ...(first < blocks.from ? [hours(first, blocks.from - HOUR_MS)] : []),
          ...(blocks.to <= last ? [hours(blocks.to, last)] : []),
        ];
  // Unnamed on purpose: prepared, PostgreSQL's generic plan (taken after five runs) guessed 139 rows
  // for the window and sorted the 5,672 of a day at 1,000,000 spans for a group aggregate, 11 ms
  // against 3 ms for the hash aggregate each custom plan takes (docs/benchmarks.md, target 5).
  const { rows } = await execute<LineageRow>(
    db,
    sql`select edge_type, source, target, sum(calls)::int as calls, sum(errors)::int as errors, sum(latency_sum_ms)::float8 as latency_sum_ms
        from (${sql.join(parts, sql` union all `)}) e
        group by edge_type, source, target
        order by edge_type, source, target`,
  );
  return numbers(rows);
}

/**
 * The lineage_hourly rows of one hour (every project's, or one project's), unsummed, in the order
 * `edge_type, source, target, project_id`: an edge's rows together, each project's in the order an
 * index scan of the hour gives them to sumLineage's sum (lineage-cache.ts adds them in that order).
 */
export async function lineageHourRows(
  db: Db,
  projectId: string | null,
  hour: number,
): Promise<LineageRow[]> {
  const project = projectId === null ? sql`true` : sql`project_id = ${projectId}`;
  // Prepared (two fixed texts, every value a parameter): it is all a cached read asks the database.
  const rows = await executePrepared<LineageRow>(
    db,
    sql`select edge_type, source, target, calls, errors, latency_sum_ms from lineage_hourly
        where hour = ${timestamptz(hour)} and ${project}
        order by edge_type, source, target, project_id`,
  );
  return numbers(rows);
}

/** The database's collation (`datcollate`): how `order by` compares text. */
export async function databaseCollation(db: Db): Promise<string> {
  const { rows } = await execute<{ collation: string }>(
    db,
    sql`select datcollate as collation from pg_database where datname = current_database()`,
  );
  return rows[0]?.collation ?? '';
}

function numbers(rows: LineageRow[]): LineageRow[] {
  // In place: the driver's rows are this call's own (a copy per row was a third of its garbage).
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] as LineageRow;
    r.calls = Number(r.calls);
    r.errors = Number(r.errors);
    r.latency_sum_ms = Number(r.latency_sum_ms);
  }
  return rows;
}
