import { and, desc, eq, gte, like, lt } from 'drizzle-orm';
import type { AuditFilter } from '../model/audit-event.ts';
import type { Db } from './db.ts';
import { auditLogs } from './schema.ts';
import { likeEscape } from './sessions-repo.ts';

export type AuditRow = typeof auditLogs.$inferSelect;

export async function insertAuditRows(db: Db, rows: AuditRow[]): Promise<void> {
  if (rows.length > 0) await db.insert(auditLogs).values(rows).onConflictDoNothing();
}

export async function listAudit(
  db: Db,
  opts: AuditFilter & { projectId: string | null; limit: number; offset: number },
): Promise<AuditRow[]> {
  return db
    .select()
    .from(auditLogs)
    .where(
      and(
        opts.projectId === null ? undefined : eq(auditLogs.projectId, opts.projectId),
        opts.action === undefined ? undefined : eq(auditLogs.action, opts.action),
        opts.actor === undefined ? undefined : eq(auditLogs.actor, opts.actor),
        opts.result === undefined ? undefined : eq(auditLogs.result, opts.result),
        opts.resourcePrefix === undefined
          ? undefined
          : like(auditLogs.resource, `${likeEscape(opts.resourcePrefix)}%`),
        opts.since === undefined ? undefined : gte(auditLogs.timestamp, opts.since),
        opts.until === undefined ? undefined : lt(auditLogs.timestamp, opts.until),
      ),
    )
    .orderBy(desc(auditLogs.timestamp), desc(auditLogs.eventId))
    .limit(opts.limit)
    .offset(opts.offset);
}
