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

export interface ImpactConsumer {
  agent_name: string | null;
  session_count: number;
  last_called_at: string;
}

export interface DriftImpact {
  server_name: string;
  tool_name: string;
  window_hours: number;
  consumers: ImpactConsumer[];
  total_sessions: number;
}

export type BlastSeverity = 'CRITICAL' | 'HIGH' | 'MEDIUM' | 'LOW';

export interface AffectedAgent {
  agent_name: string | null;
  call_count: number;
  session_count: number;
  error_count: number;
  error_rate: number;
  avg_latency_ms: number;
  last_called_at: string;
}

export interface BlastRadius {
  server_name: string;
  server_status: CheckedStatus;
  window_hours: number;
  severity: BlastSeverity;
  total_agents: number;
  total_sessions: number;
  total_calls: number;
  affected_agents: AffectedAgent[];
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

/** A tool list an agent posted (POST /api/servers/{name}/tools), and the drift it showed. */
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
