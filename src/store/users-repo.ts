import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from './db.ts';
import { invites, users } from './schema.ts';

export type UserRow = typeof users.$inferSelect;

export async function listUsers(db: Db): Promise<UserRow[]> {
  return db.select().from(users).orderBy(asc(users.createdAt));
}

export async function findUser(db: Db, id: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return row;
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.email, email)).limit(1);
  return row;
}

export async function insertUser(db: Db, row: typeof users.$inferInsert): Promise<UserRow> {
  const [created] = await db.insert(users).values(row).returning();
  return created as UserRow;
}

export async function updateUser(
  db: Db,
  id: string,
  patch: Partial<typeof users.$inferInsert>,
): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({ ...patch, updatedAt: sql`now()` })
    .where(eq(users.id, id))
    .returning();
  return row;
}

export async function countActiveAdmins(db: Db): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(users)
    .where(and(eq(users.role, 'admin'), eq(users.status, 'active')));
  return row?.n ?? 0;
}

export async function insertInvite(db: Db, row: typeof invites.$inferInsert): Promise<void> {
  await db.insert(invites).values(row);
}

/** An unexpired, unused invite for the token hash, or undefined. */
export async function findOpenInvite(db: Db, tokenHash: string) {
  const [row] = await db
    .select()
    .from(invites)
    .where(
      and(
        eq(invites.tokenHash, tokenHash),
        isNull(invites.acceptedAt),
        gt(invites.expiresAt, sql`now()`),
      ),
    )
    .limit(1);
  return row;
}

export async function markInviteAccepted(db: Db, id: string): Promise<boolean> {
  const rows = await db
    .update(invites)
    .set({ acceptedAt: sql`now()` })
    .where(and(eq(invites.id, id), isNull(invites.acceptedAt)))
    .returning({ id: invites.id });
  return rows.length > 0;
}
