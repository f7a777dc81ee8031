import { sql } from 'drizzle-orm';
import { execute, type Db } from './db.ts';
import { agents, servers } from './schema.ts';

export const AUTO_DESCRIPTION = 'Auto-discovered from traces';

/**
 * Adds catalog entries for names not yet present. Insert-if-absent: an entry a user edited is never
 * overwritten. Returns the names that were new.
 */
export async function registerNames(db: Db, kind: 'agent' | 'server', projectId: string, names: readonly string[]): Promise<string[]> {
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
export async function findUncataloguedNames(db: Db, kind: 'agent' | 'server', projectId: string): Promise<string[]> {
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
