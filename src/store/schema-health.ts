import {
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  boolean,
} from 'drizzle-orm/pg-core';

/** Tables of the MCP health checker (docs/health.md): results, tool-list snapshots, drift events. */
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** One row per completed check; retained `retention.health_days` (90) days. */
export const healthResults = pgTable(
  'health_results',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    serverName: text('server_name').notNull(),
    /** up | degraded | down; stale and unknown are derived when read. */
    status: text('status').notNull(),
    latencyMs: doublePrecision('latency_ms'),
    toolsCount: integer('tools_count'),
    schemaHash: text('schema_hash'),
    error: text('error'),
    checkedAt: ts('checked_at').notNull(),
    schemaDrift: boolean('schema_drift').notNull().default(false),
    transport: text('transport'),
    /** serverInfo from initialize and the negotiated protocol version: stored, never hashed. */
    serverInfo: jsonb('server_info').$type<Record<string, unknown>>(),
    protocolVersion: text('protocol_version'),
    instructions: text('instructions'),
  },
  (t) => [
    index('health_results_server_time_idx').on(t.projectId, t.serverName, t.checkedAt),
    index('health_results_time_idx').on(t.checkedAt),
  ],
);

/** The reduced tool list behind each schema hash, stored once per hash: what drift is diffed from. */
export const toolSchemas = pgTable('tool_schemas', {
  hash: text('hash').primaryKey(),
  tools: jsonb('tools').$type<unknown[]>().notNull(),
  firstSeenAt: ts('first_seen_at').notNull().defaultNow(),
  /** Refreshed by every check that sees this hash; retention removes unreferenced old snapshots. */
  lastSeenAt: ts('last_seen_at').notNull().defaultNow(),
});

export const driftEvents = pgTable(
  'drift_events',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    serverName: text('server_name').notNull(),
    detectedAt: ts('detected_at').notNull(),
    previousHash: text('previous_hash').notNull(),
    currentHash: text('current_hash').notNull(),
    /** The most severe change's class. */
    classification: text('classification').notNull(),
    changes: jsonb('changes').$type<unknown[]>().notNull(),
    resultId: text('result_id'),
    /** null: found by a Spyglass health check; `agent`: in a tool list an agent posted (drizzle/0021). */
    observedBy: text('observed_by'),
    /** The agent whose posted tool list showed the drift. */
    agentName: text('agent_name'),
  },
  (t) => [index('drift_events_server_time_idx').on(t.projectId, t.serverName, t.detectedAt)],
);

/**
 * Tool lists agents saw and posted (POST /api/servers/{name}/tools): servers Spyglass cannot reach
 * itself get drift detection from them. The newest row per (project, server) is the baseline.
 */
export const observedToolLists = pgTable(
  'observed_tool_lists',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    serverName: text('server_name').notNull(),
    agentName: text('agent_name'),
    schemaHash: text('schema_hash').notNull(),
    toolsCount: integer('tools_count').notNull(),
    observedAt: ts('observed_at').notNull(),
  },
  (t) => [index('observed_tool_lists_server_time_idx').on(t.projectId, t.serverName, t.observedAt)],
);
