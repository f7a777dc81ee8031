import type { Alert, AlertConfig, AlertCounts } from './alert.ts';

/** The inbox record in the spec's snake_case (docs/alerts.md#the-inbox-record): REST bodies and `alert:fired` events. */
export interface AlertJson {
  id: string;
  type: string;
  severity: string;
  title: string;
  message: string;
  project_id: string;
  server_name: string | null;
  agent_name: string | null;
  session_id: string | null;
  status: string;
  fired_at: string;
  acknowledged_at: string | null;
  resolved_at: string | null;
  snoozed_until: string | null;
  fields: Record<string, string | number | boolean | null>;
  delivery: string;
  delivery_error: string | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toAlertJson(a: Alert): AlertJson {
  return {
    id: a.id,
    type: a.type,
    severity: a.severity,
    title: a.title,
    message: a.message,
    project_id: a.projectId,
    server_name: a.serverName,
    agent_name: a.agentName,
    session_id: a.sessionId,
    status: a.status,
    fired_at: a.firedAt.toISOString(),
    acknowledged_at: iso(a.acknowledgedAt),
    resolved_at: iso(a.resolvedAt),
    snoozed_until: iso(a.snoozedUntil),
    fields: a.fields,
    delivery: a.delivery,
    delivery_error: a.deliveryError,
  };
}

/** GET /api/alerts/counts (docs/alerts.md). */
export function toAlertCountsJson(c: AlertCounts) {
  return {
    firing: c.firing,
    acknowledged: c.acknowledged,
    snoozed: c.snoozed,
    needs_attention: c.needsAttention,
    by_severity: { ...c.bySeverity },
  };
}

/** GET/POST /api/alerts/config: the webhook only masked (docs/alerts.md). */
export function toAlertConfigJson(c: AlertConfig) {
  return {
    alert_types: c.alertTypes,
    chat_webhook_configured: c.chatWebhookConfigured,
    chat_webhook_source: c.chatWebhookSource,
    chat_webhook_masked: c.chatWebhookMasked,
  };
}
