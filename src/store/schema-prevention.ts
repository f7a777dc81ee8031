import {
  boolean,
  doublePrecision,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Prevention configs (docs/prevention.md) in the flat shape: one row per project default
 * (agent_name `*`) and per agent override. Null limits mean "no limit".
 */
export const preventionConfigs = pgTable(
  'prevention_configs',
  {
    id: uuid('id').primaryKey(),
    projectId: text('project_id').notNull(),
    agentName: text('agent_name').notNull(),
    loopEnabled: boolean('loop_enabled').notNull(),
    loopThreshold: integer('loop_threshold').notNull(),
    loopAction: text('loop_action').notNull(),
    maxSteps: integer('max_steps'),
    maxCostUsd: doublePrecision('max_cost_usd'),
    // Seconds may be fractional (30.5): LangSight's SDK sends floats (drizzle/0019).
    maxWallTimeS: doublePrecision('max_wall_time_s'),
    budgetSoftAlert: doublePrecision('budget_soft_alert'),
    cbEnabled: boolean('cb_enabled').notNull(),
    cbFailureThreshold: integer('cb_failure_threshold').notNull(),
    cbCooldownSeconds: doublePrecision('cb_cooldown_seconds').notNull(),
    cbHalfOpenMaxCalls: integer('cb_half_open_max_calls').notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('prevention_configs_project_agent_idx').on(t.projectId, t.agentName)],
);
