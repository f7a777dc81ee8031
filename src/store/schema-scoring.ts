import { integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Hourly rollups of health_results, maintained by statement triggers on that table
 * (drizzle/0007_scans_and_scoring.sql), so the scorecard's 7-day and 30-day windows read at most
 * 720 rows per server (and a few latency buckets each) instead of 43,200 checks.
 */
export const healthHourly = pgTable(
  'health_hourly',
  {
    projectId: text('project_id').notNull(),
    serverName: text('server_name').notNull(),
    hour: ts('hour').notNull(),
    checks: integer('checks').notNull(),
    downChecks: integer('down_checks').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.serverName, t.hour] })],
);

/**
 * Latencies of the checks that were not down, counted per hour on a log scale anchored at 5000 ms:
 * bucket k holds (5000 × 1.05^(k−201), 5000 × 1.05^(k−200)] ms, bucket 0 everything below.
 */
export const healthLatencyHourly = pgTable(
  'health_latency_hourly',
  {
    projectId: text('project_id').notNull(),
    serverName: text('server_name').notNull(),
    hour: ts('hour').notNull(),
    bucket: integer('bucket').notNull(),
    checks: integer('checks').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.serverName, t.hour, t.bucket] })],
);

/**
 * The same latency buckets per UTC day, kept by the same triggers (drizzle/0008_daily_latency_rollup.sql):
 * the scorecard's 30-day p99 reads the window's whole days here, and hourly rows only for its
 * partial first day and the last 24 hours, instead of 720 hours of buckets (docs/benchmarks.md,
 * "Scorecards at 100 servers × 90 days").
 */
export const healthLatencyDaily = pgTable(
  'health_latency_daily',
  {
    projectId: text('project_id').notNull(),
    serverName: text('server_name').notNull(),
    day: ts('day').notNull(),
    bucket: integer('bucket').notNull(),
    checks: integer('checks').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.serverName, t.day, t.bucket] })],
);
