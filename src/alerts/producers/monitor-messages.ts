import type { CheckReport } from '../../health/checker.ts';
import type { DriftEvent } from '../../model/health.ts';
import type { FireInput } from '../../model/alert.ts';

/**
 * What the monitor's alerts say (docs/alert-producers.md): one builder per alert type, pure, so the wording and
 * the dedup keys live in one place. Keys are per project (the sink scopes them).
 */
type Result = CheckReport['result'];

export const downKey = (server: string): string => `mcp_down:${server}`;
export const latencyKey = (server: string): string => `high_latency:${server}`;
/** With `monitor.alert_on_every_failure`, each failed check is its own alert. */
export const everyFailureKey = (server: string, resultId: string): string =>
  `mcp_down:${server}:${resultId}`;

const MAX_ERROR_CHARS = 300;

function common(
  r: Pick<Result, 'projectId' | 'serverName'>,
): Pick<FireInput, 'projectId' | 'serverName'> {
  return { projectId: r.projectId, serverName: r.serverName };
}

function clip(text: string | null, max = MAX_ERROR_CHARS): string | null {
  if (text === null) return null;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function mcpDown(r: Result, failures: number, dedupKey: string): FireInput {
  const error = clip(r.error) ?? 'no error reported';
  return {
    ...common(r),
    type: 'mcp_down',
    severity: 'critical',
    title: `MCP server ${r.serverName} is down`,
    message: `${failures} failed health check${failures === 1 ? '' : 's'} in a row; last error: ${error}`,
    dedupKey,
    dedupScope: 'open',
    fields: {
      failures,
      last_error: error,
      checked_at: r.checkedAt?.toISOString() ?? null,
      transport: r.transport,
    },
  };
}

export function mcpRecovered(r: Result, failures: number): FireInput {
  const latency = r.latencyMs === null ? '' : `, ${Math.round(r.latencyMs)} ms`;
  return {
    ...common(r),
    type: 'mcp_recovered',
    severity: 'info',
    title: `MCP server ${r.serverName} recovered`,
    message: `Health check passing again (${r.status}${latency}) after ${failures} failed check${failures === 1 ? '' : 's'}.`,
    // Unique per recovery: each transition back up is reported once, and the next one again.
    dedupKey: `mcp_recovered:${r.serverName}:${r.id}`,
    dedupScope: 'forever',
    fields: {
      failures,
      status: r.status,
      latency_ms: r.latencyMs,
      checked_at: r.checkedAt?.toISOString() ?? null,
    },
  };
}

export function schemaDrift(r: Pick<Result, 'projectId' | 'serverName'>, d: DriftEvent): FireInput {
  const shown = d.changes.slice(0, 3).map(describeChange);
  const more =
    d.changes.length > shown.length ? `; and ${d.changes.length - shown.length} more` : '';
  return {
    ...common(r),
    type: 'schema_drift',
    severity: d.classification === 'BREAKING' ? 'critical' : 'warning',
    title: `Tool schema of ${r.serverName} changed (${d.classification})`,
    message: `${d.changes.length} change${d.changes.length === 1 ? '' : 's'}: ${shown.join('; ')}${more}.`,
    dedupKey: `schema_drift:${r.serverName}:${d.id}`,
    dedupScope: 'forever',
    fields: {
      classification: d.classification,
      changes: d.changes.length,
      previous_hash: d.previousHash,
      current_hash: d.currentHash,
      drift_id: d.id,
      detected_at: d.detectedAt.toISOString(),
    },
  };
}

export function highLatency(
  r: Result & { latencyMs: number },
  baselineMs: number,
  multiplier: number,
): FireInput {
  const ratio = r.latencyMs / baselineMs;
  return {
    ...common(r),
    type: 'high_latency',
    severity: 'warning',
    title: `MCP server ${r.serverName} is slow`,
    message: `Health check took ${Math.round(r.latencyMs)} ms, ${ratio.toFixed(1)}× its baseline of ${Math.round(baselineMs)} ms (alert above ${multiplier}×).`,
    dedupKey: latencyKey(r.serverName),
    dedupScope: 'open',
    fields: {
      latency_ms: Math.round(r.latencyMs),
      baseline_ms: Math.round(baselineMs),
      threshold_ms: Math.round(baselineMs * multiplier),
      checked_at: r.checkedAt?.toISOString() ?? null,
    },
  };
}

function describeChange(c: DriftEvent['changes'][number]): string {
  const where = [c.tool_name, c.param_name].filter((p): p is string => p !== null).join('.');
  const detail = c.detail ? ` (${clip(c.detail, 80) ?? ''})` : '';
  return `${c.change_type}${where ? ` ${where}` : ''}${detail}`;
}
