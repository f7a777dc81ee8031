import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from './db.ts';
import { sloStates, slos } from './schema-slos.ts';

export type SloRow = typeof slos.$inferSelect;
export type SloFields = Pick<SloRow, 'agentName' | 'metric' | 'threshold' | 'windowHours'>;

export async function listSloRows(
  db: Db,
  projectId: string,
  agentName?: string,
): Promise<SloRow[]> {
  const where = and(
    eq(slos.projectId, projectId),
    agentName === undefined ? undefined : eq(slos.agentName, agentName),
  );
  return db.select().from(slos).where(where).orderBy(asc(slos.createdAt), asc(slos.sloId));
}

export async function findSloRow(
  db: Db,
  projectId: string,
  sloId: string,
): Promise<SloRow | undefined> {
  const [row] = await db
    .select()
    .from(slos)
    .where(and(eq(slos.projectId, projectId), eq(slos.sloId, sloId)));
  return row;
}

/**
 * Inserts the SLO and its not-yet-evaluated state unless the project already has `max` SLOs;
 * undefined then. A per-project lock makes the count and the insert one step.
 */
export async function insertSloRow(db: Db, row: SloRow, max: number): Promise<SloRow | undefined> {
  return db.transaction(async (tx) => {
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtext(${`spyglass.slos.${row.projectId}`}))`,
    );
    const [count] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(slos)
      .where(eq(slos.projectId, row.projectId));
    if (Number(count?.n ?? 0) >= max) return undefined;
    await tx.insert(slos).values(row);
    await tx
      .insert(sloStates)
      .values({ sloId: row.sloId, projectId: row.projectId, sampleSize: 0 });
    return row;
  });
}

export async function updateSloRow(
  db: Db,
  projectId: string,
  sloId: string,
  fields: SloFields,
  updatedAt: Date,
): Promise<SloRow | undefined> {
  const [row] = await db
    .update(slos)
    .set({ ...fields, updatedAt })
    .where(and(eq(slos.projectId, projectId), eq(slos.sloId, sloId)))
    .returning();
  return row;
}

/** Deletes the SLO; its state goes with it (foreign key, on delete cascade). */
export async function deleteSloRow(db: Db, projectId: string, sloId: string): Promise<boolean> {
  const rows = await db
    .delete(slos)
    .where(and(eq(slos.projectId, projectId), eq(slos.sloId, sloId)))
    .returning({ id: slos.sloId });
  return rows.length > 0;
}

/** Projects that have at least one SLO: what the background evaluator walks. */
export async function listSloProjects(db: Db): Promise<string[]> {
  const rows = await db.selectDistinct({ projectId: slos.projectId }).from(slos);
  return rows.map((r) => r.projectId);
}
