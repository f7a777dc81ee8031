import { and, eq, sql } from 'drizzle-orm';
import type { LoopAction, PreventionConfig } from '../model/prevention-config.ts';
import type { Db } from './db.ts';
import { preventionConfigs } from './schema-prevention.ts';

export type PreventionRow = typeof preventionConfigs.$inferSelect;

/** The agent_name of a project default (docs/prevention.md#defaults-and-inheritance). */
export const PROJECT_DEFAULT = '*';

export async function findPreventionRow(
  db: Db,
  projectId: string,
  agentName: string,
): Promise<PreventionRow | undefined> {
  const [row] = await db
    .select()
    .from(preventionConfigs)
    .where(
      and(eq(preventionConfigs.projectId, projectId), eq(preventionConfigs.agentName, agentName)),
    )
    .limit(1);
  return row;
}

/** Every stored config of the project: the default first, then overrides by agent name (byte order, the same on every database). */
export async function listPreventionRows(db: Db, projectId: string): Promise<PreventionRow[]> {
  return db
    .select()
    .from(preventionConfigs)
    .where(eq(preventionConfigs.projectId, projectId))
    .orderBy(
      sql`${preventionConfigs.agentName} <> ${PROJECT_DEFAULT}`,
      sql`${preventionConfigs.agentName} collate "C"`,
    );
}

/**
 * Creates or replaces the config of (project, agent) in one statement, so two concurrent writers
 * cannot both insert; the row keeps its id and created_at when it already existed.
 */
export async function upsertPreventionRow(
  db: Db,
  row: { id: string; projectId: string; agentName: string; at: Date; config: PreventionConfig },
): Promise<PreventionRow> {
  const fields = toColumns(row.config);
  const [stored] = await db
    .insert(preventionConfigs)
    .values({
      id: row.id,
      projectId: row.projectId,
      agentName: row.agentName,
      ...fields,
      createdAt: row.at,
      updatedAt: row.at,
    })
    .onConflictDoUpdate({
      target: [preventionConfigs.projectId, preventionConfigs.agentName],
      set: { ...fields, updatedAt: row.at },
    })
    .returning();
  if (!stored) throw new Error('upsert returned no row');
  return stored;
}

export async function deletePreventionRow(
  db: Db,
  projectId: string,
  agentName: string,
): Promise<PreventionRow | undefined> {
  const [row] = await db
    .delete(preventionConfigs)
    .where(
      and(eq(preventionConfigs.projectId, projectId), eq(preventionConfigs.agentName, agentName)),
    )
    .returning();
  return row;
}

/** The flat config a row holds. */
export function configOf(r: PreventionRow): PreventionConfig {
  return {
    loop_enabled: r.loopEnabled,
    loop_threshold: r.loopThreshold,
    loop_action: r.loopAction as LoopAction,
    max_steps: r.maxSteps,
    max_cost_usd: r.maxCostUsd,
    max_wall_time_s: r.maxWallTimeS,
    budget_soft_alert: r.budgetSoftAlert,
    cb_enabled: r.cbEnabled,
    cb_failure_threshold: r.cbFailureThreshold,
    cb_cooldown_seconds: r.cbCooldownSeconds,
    cb_half_open_max_calls: r.cbHalfOpenMaxCalls,
  };
}

function toColumns(c: PreventionConfig) {
  return {
    loopEnabled: c.loop_enabled,
    loopThreshold: c.loop_threshold,
    loopAction: c.loop_action,
    maxSteps: c.max_steps,
    maxCostUsd: c.max_cost_usd,
    maxWallTimeS: c.max_wall_time_s,
    budgetSoftAlert: c.budget_soft_alert,
    cbEnabled: c.cb_enabled,
    cbFailureThreshold: c.cb_failure_threshold,
    cbCooldownSeconds: c.cb_cooldown_seconds,
    cbHalfOpenMaxCalls: c.cb_half_open_max_calls,
  };
}
