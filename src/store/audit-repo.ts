import { desc, eq } from 'drizzle-orm';
import type { Db } from './db.ts';
import { auditLogs } from './schema.ts';

export type AuditRow = typeof auditLogs.$inferSelect;

export async function insertAuditRows(db: Db, rows: AuditRow[]): Promise<void> {
  if (rows.length > 0) await db.insert(auditLogs).values(rows).onConflictDoNothing();
}

export async function listAudit(
  db: Db,
  opts: { projectId: string | null; limit: number; offset: number },
): Promise<AuditRow[]> {
  return db
    .select()
    .from(auditLogs)
    .where(opts.projectId === null ? undefined : eq(auditLogs.projectId, opts.projectId))
    .orderBy(desc(auditLogs.timestamp), desc(auditLogs.eventId))
    .limit(opts.limit)
    .offset(opts.offset);
}
