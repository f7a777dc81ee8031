import { PgDialect, type PgDatabase, type PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { sql, type SQL } from 'drizzle-orm';
import type * as schema from './schema.ts';

/** The drizzle database, the same type over PGlite and postgres.js. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** Runs raw SQL and returns rows and the affected-row count, hiding the two drivers' result shapes. */
export async function execute<T = Record<string, unknown>>(
  db: Db,
  query: SQL,
): Promise<{ rows: T[]; count: number }> {
  const res = (await db.execute(query)) as unknown;
  if (Array.isArray(res)) {
    // postgres.js: a RowList (array) with `count`
    const count = (res as unknown as { count?: number }).count ?? res.length;
    return { rows: detach(res) as T[], count };
  }
  const r = res as { rows?: T[]; affectedRows?: number };
  return { rows: r.rows ?? [], count: r.affectedRows ?? r.rows?.length ?? 0 };
}

const dialect = new PgDialect();

/**
 * Runs a read as a prepared statement on the postgres.js client under `db` (both back ends), and
 * returns its rows as the driver reads them, without drizzle's mapping of each value. drizzle runs
 * every statement unnamed: the database parses and plans it on every run (1-3 ms for a read of the
 * day-partitioned spans table, more on PGlite) and postgres.js describes it first, in a round trip
 * of its own. Prepared, a connection does that once per statement text (docs/benchmarks.md, target
 * 5), and keeps the statement: only texts of a few fixed shapes may be prepared, their values all
 * parameters, or a caller could fill each connection with plans. `prepare` false runs the text
 * unnamed (still without drizzle's mapping). In a transaction it runs on the transaction's connection.
 */
export async function executePrepared<T>(db: Db, query: SQL, prepare = true): Promise<T[]> {
  // drizzle's own prepared query without selected fields: postgres.js's rows as they come, the
  // statement named when given a name, and logged as any other (bench/read-explain.ts reads the log).
  const q = db._.session.prepareQuery(
    dialect.sqlToQuery(query),
    undefined,
    prepare ? 'read' : undefined,
    false,
  );
  return detach((await q.execute()) as unknown[]) as T[];
}

/**
 * The rows of a postgres.js result in an array of their own, the result emptied. postgres.js
 * makes each connection's next result when the last one is done, so a connection idle through two
 * scavenges fills a result V8 has already moved to the old generation; a scavenge cannot tell that
 * old array dead and keeps every row it points to, with all their values, until a mark-compact.
 * Reads of a few hundred rows then promoted all of them: 3.8-4 MB at every scavenge, one per 14
 * session trees (docs/benchmarks.md, the session tree's tail). A copy of the row pointers is cheap.
 */
function detach(result: unknown[]): unknown[] {
  const rows = result.slice();
  result.length = 0;
  return rows;
}

/**
 * executePrepared's read with each row as an array of its values in column order (postgres.js's
 * `values()`), and the columns' names: no object per row, for reads mapped straight to a response.
 * `prepare` false runs the text unnamed, as there.
 */
export async function executePreparedValues(
  db: Db,
  query: SQL,
  prepare = true,
): Promise<{ rows: unknown[][]; columns: string[] }> {
  const q = db._.session.prepareQuery(
    dialect.sqlToQuery(query),
    undefined,
    prepare ? 'read' : undefined,
    false,
    // With a result mapper, drizzle asks postgres.js for values() and hands over its result.
    (rows: unknown) => {
      const r = rows as unknown[][] & { columns?: { name: string }[] | null };
      const columns = (r.columns ?? []).map((c) => c.name);
      return { rows: detach(r) as unknown[][], columns };
    },
  );
  return (await q.execute()) as { rows: unknown[][]; columns: string[] };
}

/**
 * A time as a typed SQL value, for raw fragments. A bare Date there has no column type to bind by:
 * PGlite accepts it, postgres.js throws (ERR_INVALID_ARG_TYPE).
 */
export function timestamptz(t: Date | number): SQL {
  return sql`${new Date(t).toISOString()}::timestamptz`;
}

const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '40001',
  '40P01',
]);

/** Database errors worth retrying: the connection went away, the server is restarting, or a serialization conflict. */
export function isTransient(err: unknown): boolean {
  const e = err as { code?: string; cause?: unknown } | null;
  if (!e) return false;
  if (typeof e.code === 'string' && (TRANSIENT_CODES.has(e.code) || e.code.startsWith('08')))
    return true;
  return e.cause !== undefined && e.cause !== err && isTransient(e.cause);
}
