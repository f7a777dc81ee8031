/**
 * The health model (docs/health.md): what a check produces, what drift looks like,
 * and the JSON shapes the REST API and the CLI print. Pure types and mappers, no I/O.
 */
import type { Transport } from '../config/types.ts';

/** Stored statuses; `stale` and `unknown` are only ever derived when read (docs/health.md#what-a-check-does-and-how-it-is-classified). */
export type CheckedStatus = 'up' | 'degraded' | 'down';
export type HealthStatus = CheckedStatus | 'stale' | 'unknown';
export type Classification = 'BREAKING' | 'WARNING' | 'COMPATIBLE';

/** A configured server, resolved from the config file or a catalog entry with a url. */
export interface CheckTarget {
  projectId: string;
  name: string;
  transport: Transport;
  command?: string | undefined;
  args?: string[] | undefined;
  env?: Record<string, string> | undefined;
  url?: string | undefined;
  headers?: Record<string, string> | undefined;
  /** Seconds between checks; undefined = the monitor's interval. */
  intervalSeconds?: number | undefined;
  timeoutSeconds: number;
  healthTool?: string | undefined;
  healthToolArgs?: Record<string, unknown> | undefined;
  source: 'config' | 'catalog';
}

/** A tool as listed by tools/list, reduced to the hashed fields. */
export interface ToolSnapshot {
  name: string;
  title?: unknown;
  description?: unknown;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

export interface HealthResult {
  id: string;
  projectId: string;
  serverName: string;
  status: HealthStatus;
  latencyMs: number | null;
  toolsCount: number | null;
  schemaHash: string | null;
  error: string | null;
  checkedAt: Date | null;
  /** True when this check recorded a drift event. */
  schemaDrift: boolean;
  transport: string | null;
  serverInfo: Record<string, unknown> | null;
  protocolVersion: string | null;
}

export interface DriftChange {
  change_type: string;
  classification: Classification;
  tool_name: string | null;
  /** Dotted path for nested parameters (`options.mode`, `rows[].id`); output fields start with `outputSchema`. */
  param_name: string | null;
  param_type: string | null;
  /** What changed, for people: `string -> integer`, `maxLength 100 -> 50`. */
  detail: string | null;
}

export interface DriftEvent {
  id: string;
  projectId: string;
  serverName: string;
  detectedAt: Date;
  previousHash: string;
  currentHash: string;
  classification: Classification;
  changes: DriftChange[];
  /** Set when an agent's posted tool list showed the drift (not a Spyglass check). */
  observedBy?: 'agent' | null;
  agentName?: string | null;
}

/** One agent that called a tool in the window: the consumers a drift affects (docs/health.md#rest). */
export interface ImpactConsumer {
  agentName: string | null;
  sessionCount: number;
  lastCalledAt: Date;
}

export interface DriftImpact {
  serverName: string;
  toolName: string;
  windowHours: number;
  /** Most sessions first. */
  consumers: ImpactConsumer[];
  totalSessions: number;
}

export type BlastSeverity = 'CRITICAL' | 'HIGH' | 'MEDIUM' | 'LOW';

export interface AffectedAgent {
  agentName: string | null;
  callCount: number;
  sessionCount: number;
  errorCount: number;
  /** Percent, two decimals. */
  errorRate: number;
  avgLatencyMs: number;
  lastCalledAt: Date;
}

/** One session that called a server (or one of its tools) in a window: who a change or outage hits. */
export interface ServerSession {
  sessionId: string;
  agentName: string | null;
  callCount: number;
  errorCount: number;
  lastCalledAt: Date;
}

/** Per-agent usage of a server in the window, and how bad its outage would be. */
export interface BlastRadius {
  serverName: string;
  serverStatus: CheckedStatus;
  windowHours: number;
  severity: BlastSeverity;
  totalAgents: number;
  totalSessions: number;
  totalCalls: number;
  /** Most calls first. */
  affectedAgents: AffectedAgent[];
}

/** Health result as REST and the CLI print it (docs/health.md#what-a-check-does-and-how-it-is-classified plus project_id and server facts). */
export function toHealthJson(
  r: HealthResult,
  opts: { drift?: boolean } = {},
): Record<string, unknown> {
  return {
    server_name: r.serverName,
    status: r.status,
    latency_ms: r.latencyMs,
    tools_count: r.toolsCount,
    schema_hash: r.schemaHash,
    error: r.error,
    checked_at: r.checkedAt?.toISOString() ?? null,
    project_id: r.projectId,
    transport: r.transport,
    server_info: r.serverInfo,
    protocol_version: r.protocolVersion,
    ...(opts.drift ? { schema_drift: r.schemaDrift } : {}),
  };
}

export function toDriftJson(e: DriftEvent): Record<string, unknown> {
  return {
    id: e.id,
    server_name: e.serverName,
    detected_at: e.detectedAt.toISOString(),
    previous_hash: e.previousHash,
    current_hash: e.currentHash,
    classification: e.classification,
    changes: e.changes,
    project_id: e.projectId,
    /** `check`: a Spyglass health check found it; `agent`: a tool list an agent posted. */
    observed_by: e.observedBy ?? 'check',
    agent_name: e.agentName ?? null,
  };
}

export function toDriftImpactJson(d: DriftImpact): Record<string, unknown> {
  return {
    server_name: d.serverName,
    tool_name: d.toolName,
    window_hours: d.windowHours,
    consumers: d.consumers.map((c) => ({
      agent_name: c.agentName,
      session_count: c.sessionCount,
      last_called_at: c.lastCalledAt.toISOString(),
    })),
    total_sessions: d.totalSessions,
  };
}

export function toBlastRadiusJson(b: BlastRadius): Record<string, unknown> {
  return {
    server_name: b.serverName,
    server_status: b.serverStatus,
    window_hours: b.windowHours,
    severity: b.severity,
    total_agents: b.totalAgents,
    total_sessions: b.totalSessions,
    total_calls: b.totalCalls,
    affected_agents: b.affectedAgents.map((a) => ({
      agent_name: a.agentName,
      call_count: a.callCount,
      session_count: a.sessionCount,
      error_count: a.errorCount,
      error_rate: a.errorRate,
      avg_latency_ms: a.avgLatencyMs,
      last_called_at: a.lastCalledAt.toISOString(),
    })),
  };
}

/** One completed check as `POST /api/health/check` and `spyglass check --json` print it. */
export function toCheckJson(r: {
  result: HealthResult;
  drift: DriftEvent | null;
}): Record<string, unknown> {
  return {
    ...toHealthJson(r.result, { drift: true }),
    drift: r.drift ? toDriftJson(r.drift) : null,
  };
}

/** A tool list an agent posted (POST /api/servers/{name}/tools), and the drift it showed. */
/** A tool list an agent saw (POST /api/servers/{name}/tools, recordObservedTools). */
export interface ObservedToolsInput {
  tools: ToolSnapshot[];
  /** The agent that saw them; null or undefined when it did not say. */
  agentName?: string | null;
  /** The project asked for (a bound caller's own, else this, else `default`). */
  projectId?: string | null;
}

export interface ToolObservation {
  serverName: string;
  projectId: string;
  agentName: string | null;
  toolsCount: number;
  schemaHash: string;
  observedAt: Date;
  drift: DriftEvent | null;
}

export function toToolObservationJson(o: ToolObservation): Record<string, unknown> {
  return {
    server_name: o.serverName,
    project_id: o.projectId,
    agent_name: o.agentName,
    tools_count: o.toolsCount,
    schema_hash: o.schemaHash,
    observed_at: o.observedAt.toISOString(),
    drift: o.drift ? toDriftJson(o.drift) : null,
  };
}
