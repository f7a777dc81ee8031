import { sql } from 'drizzle-orm';
import {
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * The alert inbox (docs/alerts.md), written by AlertService (src/alerts/). One row per
 * fired alert; resolved rows are kept 90 days for audit.
 *
 * `dedup_key` backs the `open` dedup scope: the partial unique index admits one unresolved alert
 * per (project, key), so two requests firing at once still make one row (insert … on conflict do
 * nothing). `delivery` is the chat outcome: pending|sent|failed|skipped.
 */
export const alerts = pgTable(
  'alerts',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    type: text('type').notNull(),
    severity: text('severity').notNull(),
    title: text('title').notNull(),
    message: text('message').notNull(),
    serverName: text('server_name'),
    agentName: text('agent_name'),
    sessionId: text('session_id'),
    dedupKey: text('dedup_key').notNull(),
    status: text('status').notNull(),
    firedAt: ts('fired_at').notNull(),
    acknowledgedAt: ts('acknowledged_at'),
    resolvedAt: ts('resolved_at'),
    snoozedUntil: ts('snoozed_until'),
    fields: jsonb('fields').notNull(),
    delivery: text('delivery').notNull(),
    deliveryError: text('delivery_error'),
    deliveryAttempts: integer('delivery_attempts').notNull().default(0),
  },
  (t) => [
    uniqueIndex('alerts_open_dedup_idx')
      .on(t.projectId, t.dedupKey)
      .where(sql`status <> 'resolved'`),
    index('alerts_newest_idx').on(t.projectId, t.firedAt.desc(), t.id.desc()),
    index('alerts_resolved_idx').on(t.resolvedAt),
  ],
);

/** The `forever` dedup scope: a key fires once per project for as long as alerts are kept. */
export const alertDedup = pgTable(
  'alert_dedup',
  {
    projectId: text('project_id').notNull(),
    dedupKey: text('dedup_key').notNull(),
    firedAt: ts('fired_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.dedupKey] }),
    index('alert_dedup_time_idx').on(t.firedAt),
  ],
);

/** Per-project alert config (docs/alerts.md): chat toggles saved so far and the saved webhook (a secret). */
export const alertConfigs = pgTable('alert_configs', {
  projectId: text('project_id').primaryKey(),
  alertTypes: jsonb('alert_types').notNull(),
  chatWebhook: text('chat_webhook'),
  updatedAt: ts('updated_at').notNull(),
});
