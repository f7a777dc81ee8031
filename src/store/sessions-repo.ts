import { and, asc, desc, eq, gte, lte, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from './db.ts';
import { sessions, spans } from './schema.ts';

export type SessionRow = typeof sessions.$inferSelect;
export type SpanRow = typeof spans.$inferSelect;

export interface SessionFilter {
  projectId: string | null;
  agentName?: string;
  healthTag?: string;
  since: Date;
  until?: Date;
  before?: { lastCallAt: Date; sessionId: string };
  limit: number;
}

/** Sessions by most recent activity, keyset-paged; reads only the rollup. */
export async function listSessionRows(db: Db, f: SessionFilter): Promise<SessionRow[]> {
  const where: (SQL | undefined)[] = [
    f.projectId === null ? undefined : eq(sessions.projectId, f.projectId),
    f.agentName === undefined ? undefined : eq(sessions.agentName, f.agentName),
    f.healthTag === undefined ? undefined : eq(sessions.healthTag, f.healthTag),
    gte(sessions.lastCallAt, f.since),
    f.until === undefined ? undefined : lte(sessions.firstCallAt, f.until),
    // A row comparison is an index condition; the equivalent a < t or (a = t and id < s) only filters.
    f.before === undefined ? undefined : sql`(${sessions.lastCallAt}, ${sessions.sessionId}) < (${f.before.lastCallAt.toISOString()}::timestamptz, ${f.before.sessionId})`,
  ];
  return db.select().from(sessions).where(and(...where)).orderBy(desc(sessions.lastCallAt), desc(sessions.sessionId)).limit(f.limit);
}

/** The session's rollup row; with no project given, the most recent session of that id. */
export async function findSessionRow(db: Db, projectId: string | null, sessionId: string): Promise<SessionRow | undefined> {
  const [row] = await db
    .select()
    .from(sessions)
    .where(and(projectId === null ? undefined : eq(sessions.projectId, projectId), eq(sessions.sessionId, sessionId)))
    .orderBy(desc(sessions.lastCallAt))
    .limit(1);
  return row;
}

/** Spans of one session: its session_id, or its trace_id for spans that carry no session id. */
export async function listSessionSpans(db: Db, projectId: string, sessionId: string, limit: number): Promise<SpanRow[]> {
  return db
    .select()
    .from(spans)
    .where(
      and(
        eq(spans.projectId, projectId),
        or(eq(spans.sessionId, sessionId), and(sql`${spans.sessionId} is null`, eq(spans.traceId, sessionId))),
      ),
    )
    .orderBy(asc(spans.startedAt), asc(spans.spanId))
    .limit(limit);
}
