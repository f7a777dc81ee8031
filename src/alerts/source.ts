import type { Alert } from '../model/alert.ts';

/**
 * What raised an alert (docs/alerts.md#what-raised-it), so a reader can go to it: the SLO
 * (`slo_breached`, fields.slo_id), the anomalous tool (`anomaly_*`, server + fields.tool_name and
 * metric), the session (agent failures and guard alerts), the server (monitor and security
 * alerts), else the agent. Null when the alert names none of them.
 */
export type AlertSource =
  | { kind: 'slo'; sloId: string }
  | { kind: 'anomaly'; serverName: string; toolName: string; metric: string | null }
  | { kind: 'session'; sessionId: string }
  | { kind: 'server'; serverName: string }
  | { kind: 'agent'; agentName: string };

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export function alertSource(a: Alert): AlertSource | null {
  const sloId = text(a.fields.slo_id);
  if (a.type === 'slo_breached' && sloId) return { kind: 'slo', sloId };
  const toolName = text(a.fields.tool_name);
  if (a.type.startsWith('anomaly_') && a.serverName && toolName)
    return { kind: 'anomaly', serverName: a.serverName, toolName, metric: text(a.fields.metric) };
  if (a.sessionId) return { kind: 'session', sessionId: a.sessionId };
  if (a.serverName) return { kind: 'server', serverName: a.serverName };
  if (a.agentName) return { kind: 'agent', agentName: a.agentName };
  return null;
}
