import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from './db.ts';
import { apiKeys } from './schema.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export async function insertKey(db: Db, row: typeof apiKeys.$inferInsert): Promise<ApiKeyRow> {
  const [created] = await db.insert(apiKeys).values(row).returning();
  return created as ApiKeyRow;
}

export async function findKeyByHash(db: Db, keyHash: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.keyHash, keyHash)).limit(1);
  return row;
}

export async function findKey(db: Db, id: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, id)).limit(1);
  return row;
}

/** Keys newest first; `projectId` set = only keys bound to that project. */
export async function listKeys(db: Db, projectId: string | null): Promise<ApiKeyRow[]> {
  return db
    .select()
    .from(apiKeys)
    .where(projectId === null ? undefined : eq(apiKeys.projectId, projectId))
    .orderBy(desc(apiKeys.createdAt));
}

export async function revokeKey(db: Db, id: string): Promise<boolean> {
  const rows = await db.update(apiKeys).set({ revokedAt: sql`now()` }).where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt))).returning({ id: apiKeys.id });
  return rows.length > 0;
}

export async function revokeUserKeys(db: Db, userId: string): Promise<string[]> {
  const rows = await db.update(apiKeys).set({ revokedAt: sql`now()` }).where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt))).returning({ hash: apiKeys.keyHash });
  return rows.map((r) => r.hash);
}

/** Whether any usable key is stored (decides whether local auth-disabled mode may apply). */
export async function hasActiveKeys(db: Db): Promise<boolean> {
  const rows = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(isNull(apiKeys.revokedAt), sql`(${apiKeys.expiresAt} is null or ${apiKeys.expiresAt} > now())`))
    .limit(1);
  return rows.length > 0;
}

export async function touchKey(db: Db, id: string): Promise<void> {
  await db.update(apiKeys).set({ lastUsedAt: sql`now()` }).where(eq(apiKeys.id, id));
}
