import {
  doublePrecision,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * The anomaly detector's latest evaluation per (project, server, tool, metric) (see
 * docs/anomalies.md). GET /api/reliability/anomalies reads the rows whose severity is set, so a read
 * never evaluates. `alerted` and `since` are the episode: the severity already alerted while the
 * metric stays high (null when no episode is open) and when the current anomalous run began.
 */
export const anomalyStates = pgTable(
  'anomaly_states',
  {
    projectId: text('project_id').notNull(),
    serverName: text('server_name').notNull(),
    toolName: text('tool_name').notNull(),
    /** error_rate or latency_ms. */
    metric: text('metric').notNull(),
    zScore: doublePrecision('z_score').notNull(),
    currentValue: doublePrecision('current_value').notNull(),
    /** The baseline mean. */
    baselineValue: doublePrecision('baseline_value').notNull(),
    baselineStddev: doublePrecision('baseline_stddev').notNull(),
    sampleCount: integer('sample_count').notNull(),
    /** The hour the current value comes from. */
    sampleHour: ts('sample_hour').notNull(),
    /** critical, warning, or null when |z| < 2. */
    severity: text('severity'),
    detectedAt: ts('detected_at').notNull(),
    since: ts('since'),
    alerted: text('alerted'),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.serverName, t.toolName, t.metric] })],
);
