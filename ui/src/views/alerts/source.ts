import { href } from '../../router.ts';
import type { AlertItem, AlertSource } from './queries.ts';

/** Where the alert came from, as a link of this dashboard and its label; null when it names nothing. */
export function sourceLink(
  s: AlertSource | null,
  project: string,
): { href: string; label: string } | null {
  const p = { project };
  if (!s) return null;
  if (s.kind === 'slo' && s.sloId)
    return { href: href('/slos', { ...p, slo: s.sloId }), label: `SLO ${s.sloId}` };
  if (s.kind === 'anomaly' && s.serverName)
    return {
      href: href('/anomalies', { ...p, server: s.serverName, tool: s.toolName, metric: s.metric }),
      label: `Anomaly of ${s.serverName}/${s.toolName ?? ''}`,
    };
  if (s.kind === 'session' && s.sessionId)
    return {
      href: href(`/sessions/${encodeURIComponent(s.sessionId)}`, p),
      label: `Session ${s.sessionId}`,
    };
  if (s.kind === 'server' && s.serverName)
    return {
      href: href(`/servers/${encodeURIComponent(s.serverName)}`, p),
      label: `Server ${s.serverName}`,
    };
  if (s.kind === 'agent' && s.agentName)
    return {
      href: href(`/agents/${encodeURIComponent(s.agentName)}`, p),
      label: `Agent ${s.agentName}`,
    };
  return null;
}

type Json = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * An `alertFired` event's snake_case record as an inbox item. Its source is worked out like the
 * server's Alert.source (src/alerts/source.ts) from the same fields.
 */
export function fromEvent(d: Json): AlertItem | null {
  const id = str(d.id);
  const type = str(d.type);
  if (!id || !type) return null;
  const fields = (typeof d.fields === 'object' && d.fields ? d.fields : {}) as AlertItem['fields'];
  const serverName = str(d.server_name);
  const sessionId = str(d.session_id);
  const agentName = str(d.agent_name);
  const none = {
    sloId: null,
    serverName: null,
    toolName: null,
    metric: null,
    sessionId: null,
    agentName: null,
  };
  const sloId = str(fields.slo_id);
  const toolName = str(fields.tool_name);
  const source: AlertSource | null =
    type === 'slo_breached' && sloId
      ? { ...none, kind: 'slo', sloId }
      : type.startsWith('anomaly_') && serverName && toolName
        ? { ...none, kind: 'anomaly', serverName, toolName, metric: str(fields.metric) }
        : sessionId
          ? { ...none, kind: 'session', sessionId }
          : serverName
            ? { ...none, kind: 'server', serverName }
            : agentName
              ? { ...none, kind: 'agent', agentName }
              : null;
  return {
    id,
    type,
    severity: str(d.severity) ?? 'info',
    title: str(d.title) ?? type,
    message: str(d.message) ?? '',
    projectId: str(d.project_id) ?? '',
    serverName,
    agentName,
    sessionId,
    status: str(d.status) ?? 'firing',
    firedAt: str(d.fired_at) ?? new Date().toISOString(),
    acknowledgedAt: str(d.acknowledged_at),
    resolvedAt: str(d.resolved_at),
    snoozedUntil: str(d.snoozed_until),
    fields,
    delivery: str(d.delivery) ?? 'pending',
    deliveryError: str(d.delivery_error),
    source,
  };
}
