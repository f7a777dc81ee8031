import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from './db.ts';
import { projects } from './schema.ts';

export type ProjectRow = typeof projects.$inferSelect;

export async function listProjects(db: Db, onlyId: string | null): Promise<ProjectRow[]> {
  return db
    .select()
    .from(projects)
    .where(onlyId === null ? undefined : eq(projects.id, onlyId))
    .orderBy(asc(projects.createdAt));
}

export async function findProject(db: Db, id: string): Promise<ProjectRow | undefined> {
  const [row] = await db.select().from(projects).where(eq(projects.id, id)).limit(1);
  return row;
}

/** Returns undefined when the id is taken. */
export async function insertProject(
  db: Db,
  row: { id: string; name: string; settings: Record<string, unknown> },
): Promise<ProjectRow | undefined> {
  const [created] = await db.insert(projects).values(row).onConflictDoNothing().returning();
  return created;
}

export async function updateProject(
  db: Db,
  id: string,
  patch: { name?: string; settings?: Record<string, unknown> },
): Promise<ProjectRow | undefined> {
  const [row] = await db
    .update(projects)
    .set({ ...patch, updatedAt: sql`now()` })
    .where(eq(projects.id, id))
    .returning();
  return row;
}

/** Every table holding rows of a project, by its project_id column. */
const PROJECT_TABLES = [
  'spans',
  'sessions',
  'session_tools',
  'lineage_hourly',
  'lineage_blocks',
  'span_hourly',
  'span_daily',
  'agents',
  'servers',
  'health_results',
  'drift_events',
  'observed_tool_lists',
  'audit_logs',
  'api_keys',
  // Scans (their findings go with them), pins, and the health rollups (the health_results trigger
  // empties them too; listed so a project's rows go whatever the order).
  'security_scans',
  'security_pins',
  'health_hourly',
  'health_latency_hourly',
  'health_latency_daily',
  'anomaly_states',
  // A project's own model prices.
  'model_pricing',
  // SLOs; their states go with them (foreign key), listed so the order does not matter.
  'slos',
  'slo_states',
  // Alert inbox, forever-dedup keys and per-project alert config.
  'alerts',
  'alert_dedup',
  'alert_configs',
  // Prevention configs: the project default and every agent override.
  'prevention_configs',
] as const;

/**
 * Removes a project with everything stored under it, in one transaction: spans and their rollups,
 * catalog entries, health results and drift events, audit entries, and the keys bound to it (a
 * deleted key authenticates no one). Nothing of it comes back when a project of that id is created.
 */
export async function deleteProjectCascade(db: Db, id: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .delete(projects)
      .where(eq(projects.id, id))
      .returning({ id: projects.id });
    if (rows.length === 0) return false;
    for (const table of PROJECT_TABLES) {
      await tx.execute(sql`delete from ${sql.identifier(table)} where project_id = ${id}`);
    }
    return true;
  });
}
