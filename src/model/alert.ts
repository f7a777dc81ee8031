/**
 * The alert model (docs/alerts.md). Every producer (ingest, monitor, SLO
 * evaluator, anomaly detector, security scans, SDK guard tags) fires through one AlertSink.
 */

/** Alert types, each with a chat toggle (docs/alerts.md). Toggles gate chat delivery only. */
export const ALERT_TYPES = [
  'agent_failure',
  'slo_breached',
  'anomaly_critical',
  'anomaly_warning',
  'security_critical',
  'security_high',
  'mcp_down',
  'mcp_recovered',
  'schema_drift',
  'high_latency',
  'loop_detected',
  'budget_exceeded',
  'circuit_breaker_open',
  'budget_warning',
] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

/** Chat toggles when nothing was saved (docs/alerts.md; the guard types, unstated there, default on). */
export const DEFAULT_TOGGLES: Readonly<Record<AlertType, boolean>> = {
  agent_failure: true,
  slo_breached: true,
  anomaly_critical: true,
  anomaly_warning: false,
  security_critical: true,
  security_high: false,
  mcp_down: true,
  mcp_recovered: true,
  schema_drift: true,
  high_latency: true,
  loop_detected: true,
  budget_exceeded: true,
  circuit_breaker_open: true,
  budget_warning: true,
};

export const SEVERITIES = ['critical', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const ALERT_STATUSES = ['firing', 'acknowledged', 'snoozed', 'resolved'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

/** Snooze lengths the API accepts, in minutes (docs/alerts.md). */
export const SNOOZE_MINUTES = [15, 60, 240, 1440] as const;
/** How REST schemas and GraphQL arguments describe it; AlertService checks it. */
export const SNOOZE_DESCRIPTION = `one of ${SNOOZE_MINUTES.join(', ')}`;

/**
 * How a dedup key suppresses a repeat:
 * - `open`: while an alert with the key is not resolved (incidents: mcp_down, slo_breached,
 *   anomalies; resolving it, by hand or by recovery, lets the next episode fire);
 * - `forever`: once per key for as long as alerts are kept (agent_failure per session,
 *   security per scan run).
 */
export type DedupScope = 'open' | 'forever';

export interface FireInput {
  type: AlertType;
  severity: Severity;
  /** One line, shown as the chat header and inbox title. */
  title: string;
  /** A sentence or two with the figures that made it fire. */
  message: string;
  projectId: string;
  serverName?: string | null;
  agentName?: string | null;
  sessionId?: string | null;
  /** docs/alerts.md deduplication, e.g. `agent_failure:<session>`, `mcp_down:<server>`. Unique per project. */
  dedupKey: string;
  dedupScope: DedupScope;
  /** Extra facts shown as chat fields and kept on the record (small, flat values). */
  fields?: Record<string, string | number | boolean | null>;
}

/** The inbox record (docs/alerts.md#the-inbox-record), as services return it; REST maps it to snake_case. */
export interface Alert {
  id: string;
  type: AlertType;
  severity: Severity;
  title: string;
  message: string;
  projectId: string;
  serverName: string | null;
  agentName: string | null;
  sessionId: string | null;
  status: AlertStatus;
  firedAt: Date;
  acknowledgedAt: Date | null;
  resolvedAt: Date | null;
  snoozedUntil: Date | null;
  fields: Record<string, string | number | boolean | null>;
  /** Chat delivery: 'sent', 'failed', 'skipped' (toggle off or no webhook) or 'pending'. */
  delivery: 'pending' | 'sent' | 'failed' | 'skipped';
  deliveryError: string | null;
}

export interface AlertSink {
  /**
   * Writes the inbox record unless the dedup key suppresses it, publishes `alert:fired`, and queues
   * chat delivery (never awaited by the producer). Resolves to the new alert, or null when deduplicated.
   */
  fire(input: FireInput): Promise<Alert | null>;
  /**
   * Resolves the open alerts of the project with this dedup key (recovery: mcp_recovered closes
   * `mcp_down:<server>`; an anomaly or SLO that cleared closes its own). Returns how many it closed.
   */
  resolveKey(projectId: string, dedupKey: string): Promise<number>;
}

/** Open alerts of a project by status, and the firing ones by severity. */
export interface AlertCounts {
  firing: number;
  acknowledged: number;
  snoozed: number;
  /** Firing alerts (expired snoozes included): what still needs someone. */
  needsAttention: number;
  /** Firing alerts by severity. */
  bySeverity: { critical: number; warning: number; info: number };
}

export type WebhookSource = 'settings' | 'config' | 'env';

/** A project's alert config; the webhook is a secret, so only whether, where from and masked. */
export interface AlertConfig {
  alertTypes: Record<AlertType, boolean>;
  chatWebhookConfigured: boolean;
  chatWebhookSource: WebhookSource | null;
  /** scheme + host + `/…` + last 4 characters, or null. */
  chatWebhookMasked: string | null;
}

/**
 * A change to a project's alert config, as adapters pass it; AlertService checks it (known alert
 * types, size, the webhook against the outbound policy). Absent fields keep their saved values.
 */
export interface AlertConfigPatch {
  /** Chat toggles to change, keyed by alert type. */
  alertTypes?: Readonly<Record<string, boolean>> | undefined;
  /** A webhook URL to save; null or "" clears the saved one (the config file's or env's then apply). */
  chatWebhook?: string | null | undefined;
}

/** The outcome of sending the test message. */
export type WebhookTestResult = { ok: true } | { ok: false; error: string };
