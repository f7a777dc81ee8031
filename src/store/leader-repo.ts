import { eq, sql } from 'drizzle-orm';
import type { Db } from './db.ts';
import { jobLeader } from './schema-leader.ts';

/**
 * Records `token` as the newest leader token of `name`, unless a newer one is stored already (or
 * the same one, recorded by another holder).
 * True = the fence passes (this holder is still the newest leader); false = a newer leader exists.
 */
export async function recordLeaderToken(
  db: Db,
  name: string,
  token: number,
  holder: string,
): Promise<boolean> {
  const rows = await db
    .insert(jobLeader)
    .values({ name, token, holder, updatedAt: new Date() })
    .onConflictDoUpdate({
      target: jobLeader.name,
      set: { token, holder, updatedAt: new Date() },
      // The stored row is named by its table. An equal token passes only for its own holder (a
      // renewal): after Redis lost its counter, another instance can draw a number already used.
      setWhere: sql`"job_leader"."token" < ${token} or ("job_leader"."token" = ${token} and "job_leader"."holder" = ${holder})`,
    })
    .returning({ token: jobLeader.token });
  return rows.length > 0;
}

/** The newest recorded leader token of `name` (0 when none). */
export async function storedLeaderToken(db: Db, name: string): Promise<number> {
  const rows = await db
    .select({ token: jobLeader.token })
    .from(jobLeader)
    .where(eq(jobLeader.name, name));
  return rows[0]?.token ?? 0;
}
