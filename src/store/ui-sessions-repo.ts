import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db } from './db.ts';
import { uiSessions } from './schema.ts';

export type UiSessionRow = typeof uiSessions.$inferSelect;

export async function insertUiSession(db: Db, row: typeof uiSessions.$inferInsert): Promise<void> {
  await db.insert(uiSessions).values(row);
}

/** The session for a token hash while it is valid (before both expiries). */
export async function findLiveUiSession(
  db: Db,
  tokenHash: string,
): Promise<UiSessionRow | undefined> {
  const [row] = await db
    .select()
    .from(uiSessions)
    .where(
      and(
        eq(uiSessions.tokenHash, tokenHash),
        sql`${uiSessions.expiresAt} > now()`,
        sql`${uiSessions.absoluteExpiresAt} > now()`,
      ),
    )
    .limit(1);
  return row;
}

/** Slides the expiry forward (never past the absolute one). */
export async function extendUiSession(db: Db, tokenHash: string, until: Date): Promise<void> {
  await db
    .update(uiSessions)
    .set({
      expiresAt: sql`least(${until.toISOString()}::timestamptz, ${uiSessions.absoluteExpiresAt})`,
    })
    .where(eq(uiSessions.tokenHash, tokenHash));
}

export async function deleteUiSession(
  db: Db,
  tokenHash: string,
): Promise<UiSessionRow | undefined> {
  const [row] = await db.delete(uiSessions).where(eq(uiSessions.tokenHash, tokenHash)).returning();
  return row;
}

export async function deleteUserUiSessions(db: Db, userId: string): Promise<void> {
  await db.delete(uiSessions).where(eq(uiSessions.userId, userId));
}

export async function deleteExpiredUiSessions(db: Db): Promise<void> {
  await db.delete(uiSessions).where(lt(uiSessions.expiresAt, sql`now()`));
}
