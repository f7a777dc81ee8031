import { sql, type SQL } from 'drizzle-orm';
import type { ServerSession } from '../model/health.ts';
import { execute, type Db } from './db.ts';

/**
 * The sessions that called a server (or one tool of it) since `since`, most recent call first:
 * the sessions a drift or an outage of that server reaches (docs/health.md#rest). A span without a
 * session id belongs to its trace's session, as in the session rollups. Sessions of different
 * projects that share an id stay apart.
 */
export async function sessionsOfServer(
  db: Db,
  q: {
    projectId: string | null;
    serverName: string;
    toolName?: string | undefined;
    since: Date;
    limit: number;
  },
): Promise<ServerSession[]> {
  const where: SQL[] = [
    sql`server_name = ${q.serverName}`,
    sql`span_type = 'tool_call'`,
    sql`started_at >= ${q.since.toISOString()}`,
  ];
  if (q.projectId !== null) where.push(sql`project_id = ${q.projectId}`);
  if (q.toolName !== undefined) where.push(sql`tool_name = ${q.toolName}`);
  const { rows } = await execute<Record<string, unknown>>(
    db,
    sql`select coalesce(session_id, trace_id) as session_id, min(agent_name) as agent_name, count(*)::int as call_count,
          (count(*) filter (where status = 'error'))::int as error_count,
          max(started_at) as last_called_at
        from spans where ${sql.join(where, sql` and `)}
        group by project_id, 1 order by max(started_at) desc, 1 limit ${q.limit}`,
  );
  return rows.map((r) => ({
    sessionId: String(r.session_id),
    agentName: (r.agent_name as string | null) ?? null,
    callCount: Number(r.call_count),
    errorCount: Number(r.error_count),
    lastCalledAt:
      r.last_called_at instanceof Date ? r.last_called_at : new Date(String(r.last_called_at)),
  }));
}
