import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { SQL } from 'drizzle-orm';
import type * as schema from './schema.ts';

/** The drizzle database, the same type over PGlite and postgres.js. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** Runs raw SQL and returns rows and the affected-row count, hiding the two drivers' result shapes. */
export async function execute<T = Record<string, unknown>>(db: Db, query: SQL): Promise<{ rows: T[]; count: number }> {
  const res = (await db.execute(query)) as unknown;
  if (Array.isArray(res)) {
    // postgres.js: a RowList (array) with `count`
    return { rows: res as T[], count: (res as unknown as { count?: number }).count ?? res.length };
  }
  const r = res as { rows?: T[]; affectedRows?: number };
  return { rows: r.rows ?? [], count: r.affectedRows ?? r.rows?.length ?? 0 };
}
