import {
  doublePrecision,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** SLO definitions (docs/slos.md). threshold is a percentage or milliseconds by metric. */
export const slos = pgTable(
  'slos',
  {
    sloId: uuid('slo_id').primaryKey(),
    projectId: text('project_id').notNull(),
    agentName: text('agent_name').notNull(),
    metric: text('metric').notNull(),
    threshold: doublePrecision('threshold').notNull(),
    windowHours: integer('window_hours').notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [index('slos_project_idx').on(t.projectId, t.createdAt, t.sloId)],
);

/**
 * The last evaluated status of each SLO, written with the SLO (status null until the first
 * evaluation) so a transition into or out of `breached` is seen once, across restarts and
 * across workers sharing the database.
 */
export const sloStates = pgTable('slo_states', {
  sloId: uuid('slo_id')
    .primaryKey()
    .references(() => slos.sloId, { onDelete: 'cascade' }),
  projectId: text('project_id').notNull(),
  status: text('status'),
  currentValue: doublePrecision('current_value'),
  sampleSize: integer('sample_size').notNull(),
  evaluatedAt: ts('evaluated_at'),
  /** When status last changed: how long an SLO has been breached. */
  changedAt: ts('changed_at'),
});
