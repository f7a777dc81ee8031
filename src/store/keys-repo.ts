import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
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
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}

export async function revokeUserKeys(
  db: Db,
  userId: string,
): Promise<{ id: string; hash: string }[]> {
  return db
    .update(apiKeys)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id, hash: apiKeys.keyHash });
}

/** Of these key ids, those no longer usable: revoked, expired or deleted. */
export async function unusableKeyIds(db: Db, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: apiKeys.id, revokedAt: apiKeys.revokedAt, expiresAt: apiKeys.expiresAt })
    .from(apiKeys)
    .where(inArray(apiKeys.id, ids));
  const now = Date.now();
  const usable = new Set(
    rows
      .filter((r) => !r.revokedAt && (!r.expiresAt || r.expiresAt.getTime() > now))
      .map((r) => r.id),
  );
  return ids.filter((id) => !usable.has(id));
}

/** Whether any usable key is stored (decides whether local auth-disabled mode may apply). */
export async function hasActiveKeys(db: Db): Promise<boolean> {
  const rows = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(
      and(
        isNull(apiKeys.revokedAt),
        sql`(${apiKeys.expiresAt} is null or ${apiKeys.expiresAt} > now())`,
      ),
    )
    .limit(1);
  return rows.length > 0;
}

export async function touchKey(db: Db, id: string): Promise<void> {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: sql`now()` })
    .where(eq(apiKeys.id, id));
}
