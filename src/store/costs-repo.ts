import { and, asc, eq, sql } from 'drizzle-orm';
import { execute, timestamptz, type Db } from './db.ts';
import { modelPricing } from './schema-costs.ts';

export type PricingRow = typeof modelPricing.$inferSelect;
export type NewPricingRow = Omit<PricingRow, 'updatedAt'>;

/** Every project's custom price records (the ingest pricing cache loads them all at start). */
export async function listAllPricing(db: Db, projectId?: string): Promise<PricingRow[]> {
  return db
    .select()
    .from(modelPricing)
    .where(projectId === undefined ? undefined : eq(modelPricing.projectId, projectId))
    .orderBy(
      asc(modelPricing.projectId),
      asc(modelPricing.modelId),
      asc(modelPricing.effectiveFrom),
    );
}

/** Adds a dated record; one of the same model and instant is replaced (a correction, not a change). */
export async function upsertPricing(db: Db, row: NewPricingRow): Promise<PricingRow> {
  const [stored] = await db
    .insert(modelPricing)
    .values(row)
    .onConflictDoUpdate({
      target: [modelPricing.projectId, modelPricing.modelId, modelPricing.effectiveFrom],
      set: { ...row, updatedAt: sql`now()` },
    })
    .returning();
  return stored as PricingRow;
}

/** Removes a model's records of one project; returns how many there were. */
export async function deletePricing(db: Db, projectId: string, modelId: string): Promise<number> {
  const rows = await db
    .delete(modelPricing)
    .where(and(eq(modelPricing.projectId, projectId), eq(modelPricing.modelId, modelId)))
    .returning({ modelId: modelPricing.modelId });
  return rows.length;
}

export interface HourlyCostRow {
  span_type: string;
  agent_name: string;
  server_name: string;
  tool_name: string;
  model_id: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  estimated_calls: number;
}

const DAY = 86_400_000;

/**
 * The window's rollup rows summed per (type, agent, server, tool, model): at most one row per
 * combination, whatever the span count. Whole UTC days inside the window come from span_daily and
 * the partial days at its edges from span_hourly, so 30 days read about 30 rows per combination,
 * not 720. The service groups them three ways in memory. Token sums are taken as float8 (exact
 * below 2^53): a bigint sum accumulates in numeric, which made the aggregate about twice as slow.
 */
export async function sumHourlyCosts(
  db: Db,
  projectId: string,
  since: Date,
  until: Date,
): Promise<HourlyCostRow[]> {
  const firstDay = new Date(Math.ceil(since.getTime() / DAY) * DAY).toISOString();
  const endDay = new Date(
    Math.max(Math.floor(until.getTime() / DAY) * DAY, Math.ceil(since.getTime() / DAY) * DAY),
  ).toISOString();
  const from = since.toISOString();
  const to = until.toISOString();
  const { rows } = await execute<HourlyCostRow>(
    db,
    sql`
    select span_type, agent_name, server_name, tool_name, model_id,
           sum(calls) as calls, sum(input_tokens::float8) as input_tokens, sum(output_tokens::float8) as output_tokens,
           sum(cost_usd) as cost_usd, sum(estimated_calls) as estimated_calls
    from (
      select span_type, agent_name, server_name, tool_name, model_id, calls, input_tokens, output_tokens, cost_usd, estimated_calls
      from span_daily
      where project_id = ${projectId} and day >= ${firstDay}::timestamptz and day < ${endDay}::timestamptz
      union all
      select span_type, agent_name, server_name, tool_name, model_id, calls, input_tokens, output_tokens, cost_usd, estimated_calls
      from span_hourly
      where project_id = ${projectId} and hour >= ${from}::timestamptz and hour < least(${firstDay}::timestamptz, ${to}::timestamptz)
      union all
      select span_type, agent_name, server_name, tool_name, model_id, calls, input_tokens, output_tokens, cost_usd, estimated_calls
      from span_hourly
      where project_id = ${projectId} and hour >= greatest(${endDay}::timestamptz, ${from}::timestamptz) and hour < ${to}::timestamptz
    ) r
    group by span_type, agent_name, server_name, tool_name, model_id`,
  );
  return rows.map((r) => ({
    ...r,
    calls: Number(r.calls),
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
    cost_usd: Number(r.cost_usd),
    estimated_calls: Number(r.estimated_calls),
  }));
}

export interface HourlySeriesRow {
  hour: Date;
  llm_cost_usd: number;
  tool_cost_usd: number;
}

/** The range's cost per hour from span_hourly, LLM and tool apart: one row per hour that has spans. */
export async function sumCostPerHour(
  db: Db,
  projectId: string,
  since: Date,
  until: Date,
): Promise<HourlySeriesRow[]> {
  const { rows } = await execute<{
    hour: Date | string;
    llm_cost_usd: number;
    tool_cost_usd: number;
  }>(
    db,
    sql`
    select hour,
           coalesce(sum(cost_usd) filter (where span_type <> 'tool_call'), 0) as llm_cost_usd,
           coalesce(sum(cost_usd) filter (where span_type = 'tool_call'), 0) as tool_cost_usd
    from span_hourly
    where project_id = ${projectId} and hour >= ${timestamptz(since)} and hour < ${timestamptz(until)}
    group by hour
    order by hour`,
  );
  return rows.map((r) => ({
    hour: new Date(r.hour),
    llm_cost_usd: Number(r.llm_cost_usd),
    tool_cost_usd: Number(r.tool_cost_usd),
  }));
}

export interface TopSessionRow {
  session_id: string;
  agent_name: string | null;
  cost_usd: number;
  last_call_at: Date;
}

/** The costliest sessions active in the window (last call inside it), from the sessions rollup. */
export async function topSessionsByCost(
  db: Db,
  projectId: string,
  since: Date,
  until: Date,
  limit: number,
): Promise<TopSessionRow[]> {
  const { rows } = await execute<{
    session_id: string;
    agent_name: string | null;
    cost_usd: number;
    last_call_at: Date | string;
  }>(
    db,
    sql`
    select session_id, agent_name, est_cost_usd as cost_usd, last_call_at
    from sessions
    where project_id = ${projectId} and last_call_at >= ${timestamptz(since)} and last_call_at < ${timestamptz(until)}
      and est_cost_usd > 0
    order by est_cost_usd desc, session_id
    limit ${limit}`,
  );
  return rows.map((r) => ({
    ...r,
    cost_usd: Number(r.cost_usd),
    last_call_at: new Date(r.last_call_at),
  }));
}
