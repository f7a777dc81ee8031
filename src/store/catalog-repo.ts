import { and, asc, eq, sql } from 'drizzle-orm';
import { execute, type Db } from './db.ts';
import { agents, servers } from './schema.ts';

export const AUTO_DESCRIPTION = 'Auto-discovered from traces';

/**
 * Adds catalog entries for names not yet present. Insert-if-absent: an entry a user edited is never
 * overwritten. Returns the names that were new.
 */
export async function registerNames(
  db: Db,
  kind: 'agent' | 'server',
  projectId: string,
  names: readonly string[],
): Promise<string[]> {
  if (names.length === 0) return [];
  const table = kind === 'agent' ? agents : servers;
  const rows = await db
    .insert(table)
    .values(names.map((name) => ({ projectId, name, description: AUTO_DESCRIPTION })))
    .onConflictDoNothing()
    .returning({ name: table.name });
  return rows.map((r) => r.name);
}

/** Distinct agent or server names in stored spans that the catalog lacks (discovery). */
export async function findUncataloguedNames(
  db: Db,
  kind: 'agent' | 'server',
  projectId: string,
): Promise<string[]> {
  const column = kind === 'agent' ? sql`s.agent_name` : sql`s.server_name`;
  const table = kind === 'agent' ? sql`agents` : sql`servers`;
  const typeFilter = kind === 'server' ? sql`and s.span_type = 'tool_call'` : sql``;
  const { rows } = await execute<{ name: string }>(
    db,
    sql`select distinct ${column} as name from spans s where s.project_id = ${projectId} and ${column} is not null ${typeFilter}
        and not exists (select 1 from ${table} c where c.project_id = s.project_id and c.name = ${column})`,
  );
  return rows.map((r) => r.name);
}

export type AgentRow = typeof agents.$inferSelect;
export type ServerRow = typeof servers.$inferSelect;
type CatalogRow = AgentRow | ServerRow;

export interface CatalogPatch {
  description?: string | null;
  owner?: string | null;
  tags?: string[];
  runbookUrl?: string | null;
  status?: string;
  transport?: string | null;
  url?: string | null;
}

export async function listCatalog(
  db: Db,
  kind: 'agent' | 'server',
  projectId: string,
): Promise<CatalogRow[]> {
  const table = kind === 'agent' ? agents : servers;
  return db.select().from(table).where(eq(table.projectId, projectId)).orderBy(asc(table.name));
}

export async function findCatalogEntry(
  db: Db,
  kind: 'agent' | 'server',
  projectId: string,
  name: string,
): Promise<CatalogRow | undefined> {
  const table = kind === 'agent' ? agents : servers;
  const [row] = await db
    .select()
    .from(table)
    .where(and(eq(table.projectId, projectId), eq(table.name, name)))
    .limit(1);
  return row;
}

/** Creates or updates an entry with the fields sent; a user-edited entry is never overwritten by discovery. */
export async function upsertCatalogEntry(
  db: Db,
  kind: 'agent' | 'server',
  projectId: string,
  name: string,
  patch: CatalogPatch,
): Promise<CatalogRow> {
  const table = kind === 'agent' ? agents : servers;
  const values = { ...stripUndefined(patch), source: 'user', updatedAt: sql`now()` };
  const [row] = await db
    .insert(table)
    .values({ projectId, name, ...values } as unknown as typeof agents.$inferInsert)
    .onConflictDoUpdate({ target: [table.projectId, table.name], set: values })
    .returning();
  return row as CatalogRow;
}

export async function deleteCatalogEntry(
  db: Db,
  kind: 'agent' | 'server',
  projectId: string,
  name: string,
): Promise<boolean> {
  const table = kind === 'agent' ? agents : servers;
  const rows = await db
    .delete(table)
    .where(and(eq(table.projectId, projectId), eq(table.name, name)))
    .returning({ name: table.name });
  return rows.length > 0;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Runs `fn` in a transaction holding a per-project lock on the server catalog, so checks such as
 * "at most N servers with a url" and the write that follows them are not raced by another request.
 */
export async function withServerCatalogLock<T>(
  db: Db,
  projectId: string,
  fn: (tx: Db) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtext(${`spyglass.servers.${projectId}`}))`,
    );
    return fn(tx as unknown as Db);
  });
}

export async function countServersWithUrl(db: Db, projectId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(servers)
    .where(and(eq(servers.projectId, projectId), sql`${servers.url} is not null`));
  return Number(row?.n ?? 0);
}
