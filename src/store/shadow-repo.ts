import { sql, type SQL } from 'drizzle-orm';
import { execute, timestamptz, type Db } from './db.ts';

/**
 * The only SQL of the shadow-server check (OWASP-MCP-09): server names that tool-call spans of a
 * project used in a window, minus the names the caller knows and the catalog entries an operator
 * created or edited (source 'user'). Auto-registered entries (source 'auto') do not count as known:
 * auto-registration adds every name seen in spans, so it says nothing about approval.
 *
 * Served by spans_server_time_idx (project_id, server_name, started_at): the distinct names come
 * from a skip scan (one index probe per name, over all time), and spans are read only for names
 * that are not known, each within the window. Traffic to configured servers, the bulk of a large
 * spans table, is never read. The plan is checked in test/security/shadow.test.ts.
 */
export interface UnconfiguredServer {
  serverName: string;
  calls: number;
  lastSeen: Date;
}

export async function findUnconfiguredServers(
  db: Db,
  projectId: string,
  known: readonly string[],
  since: Date,
  until: Date,
): Promise<UnconfiguredServer[]> {
  const { rows } = await execute<{ server_name: string; calls: number; last_seen: Date | string }>(
    db,
    unconfiguredServersQuery(projectId, known, since, until),
  );
  return rows.map((r) => ({
    serverName: r.server_name,
    calls: Number(r.calls),
    lastSeen: new Date(r.last_seen),
  }));
}

/** The query itself, exported so its plan can be checked (EXPLAIN) against a large table. */
export function unconfiguredServersQuery(
  projectId: string,
  known: readonly string[],
  since: Date,
  until: Date,
): SQL {
  return sql`with recursive names(name) as (
          (select s.server_name from spans s where s.project_id = ${projectId} order by s.server_name limit 1)
          union all
          select (select s.server_name from spans s where s.project_id = ${projectId} and s.server_name > n.name order by s.server_name limit 1)
          from names n where n.name is not null
        ),
        unknown as (
          select n.name from names n
          where n.name is not null
            and n.name not in (select jsonb_array_elements_text(${JSON.stringify(known)}::jsonb))
            and not exists (select 1 from servers c where c.project_id = ${projectId} and c.name = n.name and c.source = 'user')
        )
        select u.name as server_name, w.calls, w.last_seen
        from unknown u
        cross join lateral (
          select count(*)::int as calls, max(s.started_at) as last_seen from spans s
          where s.project_id = ${projectId} and s.server_name = u.name and s.span_type = 'tool_call'
            and s.started_at >= ${timestamptz(since)} and s.started_at <= ${timestamptz(until)}
        ) w
        where w.calls > 0
        order by u.name`;
}
