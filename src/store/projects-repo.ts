import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from './db.ts';
import { projects } from './schema.ts';

export type ProjectRow = typeof projects.$inferSelect;

export async function listProjects(db: Db, onlyId: string | null): Promise<ProjectRow[]> {
  return db.select().from(projects).where(onlyId === null ? undefined : eq(projects.id, onlyId)).orderBy(asc(projects.createdAt));
}

export async function findProject(db: Db, id: string): Promise<ProjectRow | undefined> {
  const [row] = await db.select().from(projects).where(eq(projects.id, id)).limit(1);
  return row;
}

/** Returns undefined when the id is taken. */
export async function insertProject(db: Db, row: { id: string; name: string; settings: Record<string, unknown> }): Promise<ProjectRow | undefined> {
  const [created] = await db.insert(projects).values(row).onConflictDoNothing().returning();
  return created;
}

export async function updateProject(db: Db, id: string, patch: { name?: string; settings?: Record<string, unknown> }): Promise<ProjectRow | undefined> {
  const [row] = await db.update(projects).set({ ...patch, updatedAt: sql`now()` }).where(eq(projects.id, id)).returning();
  return row;
}

/** Removes a project with everything stored under it, in one transaction; its keys are revoked. */
export async function deleteProjectCascade(db: Db, id: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    for (const table of ['spans', 'agents', 'servers']) {
      await tx.execute(sql`delete from ${sql.identifier(table)} where project_id = ${id}`);
    }
    await tx.execute(sql`update api_keys set revoked_at = now() where project_id = ${id} and revoked_at is null`);
    const rows = await tx.delete(projects).where(eq(projects.id, id)).returning({ id: projects.id });
    return rows.length > 0;
  });
}
