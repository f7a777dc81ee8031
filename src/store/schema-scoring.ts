import { integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Hourly rollup of health_results, maintained in the statement that stores each check, so the
 * scorecard's 7-day and 30-day windows read at most 720 rows per server instead of 43,200 checks.
 * `latency_buckets` counts the latencies of checks that were not down on a log scale:
 * key k holds latencies in [1.05^k, 1.05^(k+1)) ms (key 0 also holds everything below 1 ms).
 */
export const healthHourly = pgTable(
  'health_hourly',
  {
    projectId: text('project_id').notNull(),
    serverName: text('server_name').notNull(),
    hour: ts('hour').notNull(),
    checks: integer('checks').notNull(),
    downChecks: integer('down_checks').notNull(),
    latencyBuckets: jsonb('latency_buckets').$type<Record<string, number>>().notNull().default({}),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.serverName, t.hour] })],
);
