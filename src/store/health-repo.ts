import { and, desc, eq, inArray, isNotNull, sql, type SQL } from 'drizzle-orm';
import type {
  CheckedStatus,
  DriftChange,
  DriftEvent,
  HealthResult,
  ToolSnapshot,
} from '../model/health.ts';
import { execute, type Db } from './db.ts';
import { fromPg, fromPgText, pgText, toPg } from './pg-text.ts';
import { driftEvents, healthResults, toolSchemas } from './schema-health.ts';
import { servers } from './schema.ts';

/** The only SQL of the health checker: results, tool-list snapshots, drift events, and span reads. */

export interface NewResult {
  result: HealthResult & { status: CheckedStatus };
  instructions: string | null;
  /** The reduced tool list behind `schemaHash` when it differs from the baseline's (else null). */
  tools: ToolSnapshot[] | null;
  drift: DriftEvent | null;
}

/**
 * Everything a server sent (error text, serverInfo, instructions, tools, drift details) goes
 * through pg-text.ts: a NUL or a lone surrogate is stored escaped and read back as it was sent.
 *
 * Stores a check: its result, the tool-list snapshot when it is new to this server, and its drift
 * event. The common case (nothing changed) is one INSERT: with the embedded database every
 * statement runs on the event loop that also serves the checks in flight.
 */
export async function saveCheck(db: Db, c: NewResult): Promise<void> {
  const r = c.result;
  const row = {
    id: r.id,
    projectId: r.projectId,
    serverName: r.serverName,
    status: r.status,
    latencyMs: r.latencyMs,
    toolsCount: r.toolsCount,
    schemaHash: r.schemaHash,
    error: nullableText(r.error),
    checkedAt: r.checkedAt ?? new Date(),
    schemaDrift: r.schemaDrift,
    transport: r.transport,
    serverInfo: toPg(r.serverInfo),
    protocolVersion: nullableText(r.protocolVersion),
    instructions: nullableText(c.instructions),
  };
  if (!(r.schemaHash && c.tools) && !c.drift) {
    await db.insert(healthResults).values(row);
    return;
  }
  await db.transaction(async (tx) => {
    if (r.schemaHash && c.tools) {
      await tx
        .insert(toolSchemas)
        .values({ hash: r.schemaHash, tools: toPg(c.tools) })
        .onConflictDoUpdate({ target: toolSchemas.hash, set: { lastSeenAt: sql`now()` } });
    }
    await tx.insert(healthResults).values(row);
    if (c.drift) {
      const d = c.drift;
      await tx.insert(driftEvents).values({
        id: d.id,
        projectId: d.projectId,
        serverName: d.serverName,
        detectedAt: d.detectedAt,
        previousHash: d.previousHash,
        currentHash: d.currentHash,
        classification: d.classification,
        changes: toPg(d.changes),
        resultId: r.id,
      });
    }
  });
}

export interface Baseline {
  schemaHash: string;
  instructions: string | null;
}

/** The previous successful check's schema hash and instructions: the drift baseline (docs/health.md#schema-hash-and-drift). */
export async function findBaseline(
  db: Db,
  projectId: string,
  serverName: string,
): Promise<Baseline | null> {
  const [row] = await db
    .select({ hash: healthResults.schemaHash, instructions: healthResults.instructions })
    .from(healthResults)
    .where(
      and(
        eq(healthResults.projectId, projectId),
        eq(healthResults.serverName, serverName),
        isNotNull(healthResults.schemaHash),
      ),
    )
    .orderBy(desc(healthResults.checkedAt))
    .limit(1);
  return row?.hash
    ? {
        schemaHash: row.hash,
        instructions: row.instructions === null ? null : fromPgText(row.instructions),
      }
    : null;
}

/** The tool list stored for a hash; null once retention removed it. */
export async function findToolSnapshot(db: Db, hash: string): Promise<ToolSnapshot[] | null> {
  const [row] = await db
    .select({ tools: toolSchemas.tools })
    .from(toolSchemas)
    .where(eq(toolSchemas.hash, hash))
    .limit(1);
  return row ? fromPg(row.tools as ToolSnapshot[]) : null;
}

/** The tool lists of several schema hashes in one read (those retention removed are absent). */
export async function findToolSnapshots(
  db: Db,
  hashes: readonly string[],
): Promise<{ hash: string; tools: ToolSnapshot[] }[]> {
  if (hashes.length === 0) return [];
  const rows = await db
    .select({ hash: toolSchemas.hash, tools: toolSchemas.tools })
    .from(toolSchemas)
    .where(inArray(toolSchemas.hash, [...hashes]));
  return rows.map((r) => ({ hash: r.hash, tools: fromPg(r.tools as ToolSnapshot[]) }));
}

/** The newest result of each (project, server) asked for; one index probe per server. */
export async function latestResults(
  db: Db,
  keys: readonly { projectId: string; serverName: string }[],
): Promise<HealthResult[]> {
  if (keys.length === 0) return [];
  const json = JSON.stringify(
    keys.map((k) => ({ project_id: k.projectId, server_name: k.serverName })),
  );
  const { rows } = await execute<RawResult>(
    db,
    sql`select r.* from json_to_recordset(${json}::json) as k(project_id text, server_name text)
        cross join lateral (
          select * from health_results h where h.project_id = k.project_id and h.server_name = k.server_name
          order by h.checked_at desc limit 1
        ) r`,
  );
  return rows.map(fromRaw);
}

/** Results of one server, newest first; projectId null = every project. */
/** Where a newest-first page continues: strictly older than (time, id). */
export interface PageAfter {
  time: Date;
  id: string;
}

export async function listResults(
  db: Db,
  projectId: string | null,
  serverName: string,
  limit: number,
  after?: PageAfter,
): Promise<HealthResult[]> {
  const rows = await db
    .select()
    .from(healthResults)
    .where(
      and(
        projectId === null ? undefined : eq(healthResults.projectId, projectId),
        eq(healthResults.serverName, serverName),
        after
          ? sql`(${healthResults.checkedAt}, ${healthResults.id}) < (${after.time.toISOString()}::timestamptz, ${after.id})`
          : undefined,
      ),
    )
    .orderBy(desc(healthResults.checkedAt), desc(healthResults.id))
    .limit(limit);
  return rows.map(fromRow);
}

export async function listDriftEvents(
  db: Db,
  projectId: string | null,
  serverName: string,
  limit: number,
  after?: PageAfter,
): Promise<DriftEvent[]> {
  const rows = await db
    .select()
    .from(driftEvents)
    .where(
      and(
        projectId === null ? undefined : eq(driftEvents.projectId, projectId),
        eq(driftEvents.serverName, serverName),
        after
          ? sql`(${driftEvents.detectedAt}, ${driftEvents.id}) < (${after.time.toISOString()}::timestamptz, ${after.id})`
          : undefined,
      ),
    )
    .orderBy(desc(driftEvents.detectedAt), desc(driftEvents.id))
    .limit(limit);
  return rows.map((r) => ({
    id: r.id,
    projectId: r.projectId,
    serverName: r.serverName,
    detectedAt: r.detectedAt,
    previousHash: r.previousHash,
    currentHash: r.currentHash,
    classification: r.classification as DriftEvent['classification'],
    changes: fromPg(r.changes as DriftChange[]),
    observedBy: r.observedBy === 'agent' ? 'agent' : null,
    agentName: r.agentName,
  }));
}

/** Removes results and drift events older than `cutoff`, then snapshots nothing refers to. */
export async function deleteHealthBefore(
  db: Db,
  cutoff: Date,
): Promise<{ results: number; driftEvents: number; schemas: number }> {
  const results = await execute(
    db,
    sql`delete from health_results where checked_at < ${cutoff.toISOString()}`,
  );
  const drift = await execute(
    db,
    sql`delete from drift_events where detected_at < ${cutoff.toISOString()}`,
  );
  // An old observation is removed unless it is its server's newest: that one stays the drift baseline.
  await execute(
    db,
    sql`delete from observed_tool_lists o where o.observed_at < ${cutoff.toISOString()}
        and exists (select 1 from observed_tool_lists n where n.project_id = o.project_id and n.server_name = o.server_name and n.observed_at > o.observed_at)`,
  );
  const schemas = await execute(
    db,
    sql`delete from tool_schemas s where s.last_seen_at < ${cutoff.toISOString()}
        and not exists (select 1 from health_results h where h.schema_hash = s.hash)
        and not exists (select 1 from observed_tool_lists o where o.schema_hash = s.hash)`,
  );
  return { results: results.count, driftEvents: drift.count, schemas: schemas.count };
}

export interface AgentUsage {
  agentName: string | null;
  callCount: number;
  sessionCount: number;
  errorCount: number;
  avgLatencyMs: number;
  lastCalledAt: Date;
}

/** Tool-call spans of a server (optionally one tool) since `since`, grouped by agent (docs/health.md#rest). */
export async function usageByAgent(
  db: Db,
  q: { projectId: string | null; serverName: string; toolName?: string; since: Date },
): Promise<{ agents: AgentUsage[]; distinctSessions: number }> {
  const where: SQL[] = [
    sql`server_name = ${q.serverName}`,
    sql`span_type = 'tool_call'`,
    sql`started_at >= ${q.since.toISOString()}`,
  ];
  if (q.projectId !== null) where.push(sql`project_id = ${q.projectId}`);
  if (q.toolName !== undefined) where.push(sql`tool_name = ${q.toolName}`);
  const cond = sql.join(where, sql` and `);
  const { rows } = await execute<Record<string, unknown>>(
    db,
    sql`select agent_name, count(*)::int as call_count, count(distinct session_id)::int as session_count,
          (count(*) filter (where status = 'error'))::int as error_count, avg(latency_ms)::float8 as avg_latency_ms,
          max(started_at) as last_called_at
        from spans where ${cond} group by agent_name`,
  );
  const { rows: total } = await execute<{ n: number }>(
    db,
    sql`select count(distinct session_id)::int as n from spans where ${cond}`,
  );
  return {
    agents: rows.map((r) => ({
      agentName: (r.agent_name as string | null) ?? null,
      callCount: Number(r.call_count),
      sessionCount: Number(r.session_count),
      errorCount: Number(r.error_count),
      avgLatencyMs: Number(r.avg_latency_ms),
      lastCalledAt: toDate(r.last_called_at),
    })),
    distinctSessions: Number(total[0]?.n ?? 0),
  };
}

type Row = typeof healthResults.$inferSelect;
type RawResult = Record<string, unknown>;

function fromRow(r: Row): HealthResult {
  return {
    id: r.id,
    projectId: r.projectId,
    serverName: r.serverName,
    status: r.status as CheckedStatus,
    latencyMs: r.latencyMs,
    toolsCount: r.toolsCount,
    schemaHash: r.schemaHash,
    error: r.error === null ? null : fromPgText(r.error),
    checkedAt: r.checkedAt,
    schemaDrift: r.schemaDrift,
    transport: r.transport,
    serverInfo: fromPg(r.serverInfo ?? null),
    protocolVersion: r.protocolVersion === null ? null : fromPgText(r.protocolVersion),
  };
}

/** Raw SQL rows come back snake_case, with drivers differing on timestamp and JSON parsing. */
function fromRaw(r: RawResult): HealthResult {
  const info = r.server_info;
  return {
    id: String(r.id),
    projectId: String(r.project_id),
    serverName: String(r.server_name),
    status: r.status as CheckedStatus,
    latencyMs: r.latency_ms === null || r.latency_ms === undefined ? null : Number(r.latency_ms),
    toolsCount:
      r.tools_count === null || r.tools_count === undefined ? null : Number(r.tools_count),
    schemaHash: (r.schema_hash as string | null) ?? null,
    error: typeof r.error === 'string' ? fromPgText(r.error) : null,
    checkedAt: toDate(r.checked_at),
    schemaDrift: r.schema_drift === true || r.schema_drift === 't',
    transport: (r.transport as string | null) ?? null,
    serverInfo: fromPg(
      typeof info === 'string'
        ? (JSON.parse(info) as Record<string, unknown>)
        : ((info as Record<string, unknown> | null) ?? null),
    ),
    protocolVersion: typeof r.protocol_version === 'string' ? fromPgText(r.protocol_version) : null,
  };
}

function nullableText(s: string | null): string | null {
  return s === null ? null : pgText(s);
}

function toDate(v: unknown): Date {
  return v instanceof Date ? v : new Date(String(v));
}

/** Catalog servers with a url: configured servers besides the config file's (docs/health.md#configuring-servers). */
export async function listCatalogEndpoints(
  db: Db,
  projectId: string | null,
): Promise<{ projectId: string; name: string; transport: string | null; url: string }[]> {
  const rows = await db
    .select({
      projectId: servers.projectId,
      name: servers.name,
      transport: servers.transport,
      url: servers.url,
    })
    .from(servers)
    .where(
      and(
        isNotNull(servers.url),
        projectId === null ? undefined : eq(servers.projectId, projectId),
      ),
    );
  return rows.filter(
    (r): r is typeof r & { url: string } => typeof r.url === 'string' && r.url !== '',
  );
}
