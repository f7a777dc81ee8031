import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const projects = pgTable('projects', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/**
 * Spans, keyed by (project, span id, start time) so a retried export (same id, same start) is
 * stored once. Indexes serve the reads of docs/api.md#rest: by project+time, trace, session, server+time,
 * agent+time. Partitioned by day on started_at (migration 0017, src/store/partitions.ts): drizzle
 * does not declare partitioning, so the table here is its parent's shape.
 */
export const spans = pgTable(
  'spans',
  {
    projectId: text('project_id').notNull(),
    spanId: text('span_id').notNull(),
    traceId: text('trace_id'),
    parentSpanId: text('parent_span_id'),
    sessionId: text('session_id'),
    spanType: text('span_type').notNull(),
    serverName: text('server_name').notNull(),
    toolName: text('tool_name').notNull(),
    agentName: text('agent_name'),
    status: text('status').notNull(),
    error: text('error'),
    startedAt: ts('started_at').notNull(),
    endedAt: ts('ended_at').notNull(),
    latencyMs: doublePrecision('latency_ms').notNull(),
    inputArgs: jsonb('input_args').$type<Record<string, unknown>>(),
    outputResult: text('output_result'),
    llmInput: text('llm_input'),
    llmOutput: text('llm_output'),
    inputTokens: integer('input_tokens'),
    outputTokens: integer('output_tokens'),
    modelId: text('model_id'),
    healthTag: text('health_tag'),
    /** Cost at ingest: LLM tokens × the model price in effect, or a tool-cost rule; null when neither applies. */
    costUsd: doublePrecision('cost_usd'),
    /** True when the model had no price record and the unknown-model price was used. */
    costEstimated: boolean('cost_estimated'),
    // LangSight's further fields (drizzle/0022).
    targetAgentName: text('target_agent_name'),
    finishReason: text('finish_reason'),
    cacheReadTokens: integer('cache_read_tokens'),
    cacheCreationTokens: integer('cache_creation_tokens'),
    thinkingTokens: integer('thinking_tokens'),
    lineageProvenance: text('lineage_provenance'),
    lineageStatus: text('lineage_status'),
    schemaVersion: text('schema_version'),
    replayOf: text('replay_of'),
    ingestedAt: ts('ingested_at').notNull().defaultNow(),
  },
  (t) => [
    // Ascending on purpose: reads go newest first by scanning backwards. drizzle's .desc() means
    // DESC NULLS LAST, which a plain ORDER BY ... DESC (NULLS FIRST) cannot use.
    primaryKey({ columns: [t.projectId, t.spanId, t.startedAt] }),
    index('spans_project_time_idx').on(t.projectId, t.startedAt, t.spanId),
    index('spans_time_idx').on(t.startedAt, t.spanId),
    index('spans_trace_idx')
      .on(t.traceId, t.startedAt)
      .where(sql`${t.traceId} is not null`),
    index('spans_session_idx')
      .on(t.projectId, t.sessionId, t.startedAt)
      .where(sql`${t.sessionId} is not null`),
    // A session without session id is keyed by its trace: the other branch of a session's spans.
    index('spans_sessionless_trace_idx')
      .on(t.projectId, t.traceId, t.startedAt)
      .where(sql`${t.sessionId} is null`),
    index('spans_server_time_idx').on(t.projectId, t.serverName, t.startedAt),
    index('spans_agent_time_idx').on(t.projectId, t.agentName, t.startedAt),
  ],
);

const catalogColumns = {
  projectId: text('project_id').notNull(),
  name: text('name').notNull(),
  description: text('description'),
  owner: text('owner'),
  tags: jsonb('tags').$type<string[]>().notNull().default([]),
  runbookUrl: text('runbook_url'),
  /** 'auto' for auto-registered entries, 'user' once someone edited them. */
  source: text('source').notNull().default('auto'),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
};

export const agents = pgTable(
  'agents',
  { ...catalogColumns, status: text('status').notNull().default('active') },
  (t) => [primaryKey({ columns: [t.projectId, t.name] })],
);

export const servers = pgTable(
  'servers',
  { ...catalogColumns, transport: text('transport'), url: text('url') },
  (t) => [primaryKey({ columns: [t.projectId, t.name] })],
);

export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/** API keys: only the SHA-256 of the whole key is stored; the key itself is shown once. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** `sg_` and the first hex characters, for recognising a key in lists and audit entries. */
    prefix: text('prefix').notNull(),
    keyHash: text('key_hash').notNull().unique(),
    role: text('role').notNull(),
    projectId: text('project_id'),
    userId: text('user_id'),
    createdBy: text('created_by'),
    createdAt: ts('created_at').notNull().defaultNow(),
    expiresAt: ts('expires_at'),
    revokedAt: ts('revoked_at'),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [index('api_keys_user_idx').on(t.userId)],
);

export const users = pgTable('users', {
  id: text('id').primaryKey(),
  email: text('email').notNull().unique(),
  role: text('role').notNull(),
  /** invited → active → deactivated */
  status: text('status').notNull(),
  passwordHash: text('password_hash'),
  failedLogins: integer('failed_logins').notNull().default(0),
  lockedUntil: ts('locked_until'),
  lastLoginAt: ts('last_login_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/**
 * Dashboard sign-ins (docs/ui.md#auth): only the SHA-256 of the cookie's token is stored. A session
 * stands for a user (role read afresh on every request) or for an API key (by the key's hash, so a
 * revoked or expired key ends its sessions too).
 */
export const uiSessions = pgTable(
  'ui_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id'),
    keyHash: text('key_hash'),
    createdAt: ts('created_at').notNull().defaultNow(),
    expiresAt: ts('expires_at').notNull(),
    absoluteExpiresAt: ts('absolute_expires_at').notNull(),
  },
  (t) => [index('ui_sessions_expires_idx').on(t.expiresAt)],
);

export const invites = pgTable('invites', {
  id: text('id').primaryKey(),
  userId: text('user_id').notNull(),
  tokenHash: text('token_hash').notNull().unique(),
  expiresAt: ts('expires_at').notNull(),
  acceptedAt: ts('accepted_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const auditLogs = pgTable(
  'audit_logs',
  {
    eventId: text('event_id').primaryKey(),
    timestamp: ts('timestamp').notNull(),
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    resource: text('resource').notNull(),
    result: text('result').notNull(),
    projectId: text('project_id'),
  },
  (t) => [index('audit_logs_time_idx').on(t.timestamp, t.eventId)],
);

/**
 * Session rollup, maintained in the same transaction as the spans (docs/ingest.md#derived-data), so listing
 * sessions never scans raw spans. A session is keyed by session_id, or trace_id without one.
 */
export const sessions = pgTable(
  'sessions',
  {
    projectId: text('project_id').notNull(),
    sessionId: text('session_id').notNull(),
    agentName: text('agent_name'),
    firstCallAt: ts('first_call_at').notNull(),
    lastCallAt: ts('last_call_at').notNull(),
    lastEndAt: ts('last_end_at').notNull(),
    spanCount: integer('span_count').notNull(),
    toolCalls: integer('tool_calls').notNull(),
    failedCalls: integer('failed_calls').notNull(),
    /** Tool calls a guard blocked (status `prevented`): neither succeeded nor failed (drizzle/0020). */
    preventedCalls: integer('prevented_calls').notNull().default(0),
    serversUsed: text('servers_used').array().notNull(),
    inputTokens: bigint('input_tokens', { mode: 'number' }).notNull(),
    outputTokens: bigint('output_tokens', { mode: 'number' }).notNull(),
    estCostUsd: doublePrecision('est_cost_usd').notNull(),
    /** Highest severity rank among the health_tags its spans carry (0 = none). */
    tagRank: integer('tag_rank').notNull(),
    hasTimeout: boolean('has_timeout').notNull(),
    healthTag: text('health_tag').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.sessionId] }),
    index('sessions_project_last_idx').on(t.projectId, t.lastCallAt, t.sessionId),
    index('sessions_agent_last_idx').on(t.projectId, t.agentName, t.lastCallAt, t.sessionId),
    // For callers that see every project (local mode, global keys).
    index('sessions_last_idx').on(t.lastCallAt, t.sessionId),
    index('sessions_id_idx').on(t.sessionId),
  ],
);

/** Per session and tool: failures seen and the latest outcome, for tool_failure vs success_with_fallback. */
export const sessionTools = pgTable(
  'session_tools',
  {
    projectId: text('project_id').notNull(),
    sessionId: text('session_id').notNull(),
    serverName: text('server_name').notNull(),
    toolName: text('tool_name').notNull(),
    failures: integer('failures').notNull(),
    lastStartedAt: ts('last_started_at').notNull(),
    lastFailed: boolean('last_failed').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.sessionId, t.serverName, t.toolName] })],
);

/** The columns lineage_hourly and lineage_blocks share after their time: an edge and its totals. */
const lineageEdgeColumns = () => ({
  edgeType: text('edge_type').notNull(),
  source: text('source').notNull(),
  target: text('target').notNull(),
  calls: integer('calls').notNull(),
  errors: integer('errors').notNull(),
  latencySumMs: doublePrecision('latency_sum_ms').notNull(),
});

/**
 * Lineage rollup per hour (docs/ingest.md#derived-data): agent→server calls, agent→agent handoffs, and agent
 * runs (target ''). A window reads only its first and last few hours here, the rest from
 * lineage_blocks; the key leads with the hour so a read for every project finds those hours by
 * index rather than scanning the table (and retention deletes by it).
 */
export const lineageHourly = pgTable(
  'lineage_hourly',
  {
    projectId: text('project_id').notNull(),
    hour: ts('hour').notNull(),
    ...lineageEdgeColumns(),
  },
  (t) => [primaryKey({ columns: [t.hour, t.projectId, t.edgeType, t.source, t.target] })],
);

/**
 * The same edges per 4-hour UTC block (00:00, 04:00, … 20:00; `block` is its start), folded in by
 * the same ingest statement. A window aligned to the hour sums its whole blocks from here and the
 * hours before the first and after the last from lineage_hourly: 24 h is 6 blocks and 1 hour per
 * edge, or 5 blocks and up to 5 hours, instead of 25 hours (src/store/lineage-repo.ts).
 */
export const lineageBlocks = pgTable(
  'lineage_blocks',
  {
    projectId: text('project_id').notNull(),
    block: ts('block').notNull(),
    ...lineageEdgeColumns(),
  },
  (t) => [primaryKey({ columns: [t.block, t.projectId, t.edgeType, t.source, t.target] })],
);

/**
 * Per hour and (span type, agent, server, tool, model): calls, failures, latency, tokens and cost,
 * folded in at ingest like the other rollups. Anomalies (per server + tool) and the cost breakdown
 * (by model, tool, agent) read it instead of scanning spans. Missing agent or model is ''; so is
 * the tool of agent and handoff spans, whose "tool" is a free-text task description that would
 * otherwise give every span its own row.
 */
export const spanHourly = pgTable(
  'span_hourly',
  { ...rollupKeys(), hour: ts('hour').notNull(), ...rollupMeasures() },
  (t) => [
    primaryKey({
      columns: [t.projectId, t.hour, t.spanType, t.agentName, t.serverName, t.toolName, t.modelId],
    }),
  ],
);

/** The same per UTC day, so a 30-day cost breakdown sums 30 days of rows rather than 720 hours. */
export const spanDaily = pgTable(
  'span_daily',
  { ...rollupKeys(), day: ts('day').notNull(), ...rollupMeasures() },
  (t) => [
    primaryKey({
      columns: [t.projectId, t.day, t.spanType, t.agentName, t.serverName, t.toolName, t.modelId],
    }),
  ],
);

function rollupKeys() {
  return {
    projectId: text('project_id').notNull(),
    spanType: text('span_type').notNull(),
    agentName: text('agent_name').notNull(),
    serverName: text('server_name').notNull(),
    toolName: text('tool_name').notNull(),
    modelId: text('model_id').notNull(),
  };
}

function rollupMeasures() {
  return {
    calls: integer('calls').notNull(),
    errors: integer('errors').notNull(),
    latencySumMs: doublePrecision('latency_sum_ms').notNull(),
    inputTokens: bigint('input_tokens', { mode: 'number' }).notNull(),
    outputTokens: bigint('output_tokens', { mode: 'number' }).notNull(),
    costUsd: doublePrecision('cost_usd').notNull(),
    /** Calls priced at the unknown-model price. */
    estimatedCalls: integer('estimated_calls').notNull(),
  };
}
