/** Model prices and cost breakdowns (docs/costs.md). */

export const COST_WINDOWS = { '24h': 24, '7d': 168, '30d': 720 } as const;
export type CostWindow = keyof typeof COST_WINDOWS;

/** A model's price record in USD per 1M tokens: a shipped default or a project's own, effective-dated. */
export interface ModelPrice {
  modelId: string;
  provider: string;
  inputPer1mUsd: number;
  outputPer1mUsd: number;
  cacheReadPer1mUsd: number | null;
  cacheWritePer1mUsd: number | null;
  /** null for a shipped default: in effect since always. */
  effectiveFrom: Date | null;
  updatedAt: Date;
  source: 'default' | 'custom';
}

/** A price write: `model_id` and both prices for a new model; any subset for a change. */
export interface ModelPriceInput {
  provider?: string | undefined;
  inputPer1mUsd?: number | undefined;
  outputPer1mUsd?: number | undefined;
  /** null clears a cache price. */
  cacheReadPer1mUsd?: number | null | undefined;
  cacheWritePer1mUsd?: number | null | undefined;
  /** Default now; an invalid Date is a 422. */
  effectiveFrom?: Date | undefined;
}

export interface ModelCost {
  modelId: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Some calls were priced at the unknown-model price. */
  estimated: boolean;
}
export interface ToolCost {
  serverName: string;
  toolName: string;
  calls: number;
  costUsd: number;
}
export interface AgentCost {
  agentName: string;
  llmCostUsd: number;
  toolCostUsd: number;
  costUsd: number;
}
export interface SessionCost {
  sessionId: string;
  agentName: string | null;
  costUsd: number;
  lastCallAt: Date;
}

/** The hour-aligned edges a breakdown or series reads: a named window, or 'custom' for since/until. */
export interface CostRange {
  window: CostWindow | 'custom';
  since: Date;
  until: Date;
}

/** One hour of a cost series: what the hour's spans cost, LLM and tool apart. */
export interface CostPoint {
  at: Date;
  llmCostUsd: number;
  toolCostUsd: number;
  costUsd: number;
}

/** Costs of a window read from the hourly rollups; the edges are whole hours. */
export interface CostBreakdown extends CostRange {
  totalCostUsd: number;
  llmCostUsd: number;
  toolCostUsd: number;
  byModel: ModelCost[];
  byTool: ToolCost[];
  byAgent: AgentCost[];
  topSessions: SessionCost[];
}

/** The API's JSON of a price record (REST). */
export function toModelPriceJson(p: ModelPrice) {
  return {
    model_id: p.modelId,
    provider: p.provider,
    input_per_1m_usd: p.inputPer1mUsd,
    output_per_1m_usd: p.outputPer1mUsd,
    cache_read_per_1m_usd: p.cacheReadPer1mUsd,
    cache_write_per_1m_usd: p.cacheWritePer1mUsd,
    effective_from: p.effectiveFrom?.toISOString() ?? null,
    updated_at: p.updatedAt.toISOString(),
    source: p.source,
    /** Always false for a listed record; spans of unlisted models are priced at 10/30 and marked estimated. */
    estimated: false,
  };
}

/** The API's JSON of a breakdown (REST and the CLI's --json). */
export function toCostBreakdownJson(b: CostBreakdown) {
  return {
    window: b.window,
    since: b.since.toISOString(),
    until: b.until.toISOString(),
    total_cost_usd: b.totalCostUsd,
    llm_cost_usd: b.llmCostUsd,
    tool_cost_usd: b.toolCostUsd,
    by_model: b.byModel.map((m) => ({
      model_id: m.modelId,
      calls: m.calls,
      input_tokens: m.inputTokens,
      output_tokens: m.outputTokens,
      cost_usd: m.costUsd,
      estimated: m.estimated,
    })),
    by_tool: b.byTool.map((t) => ({
      server_name: t.serverName,
      tool_name: t.toolName,
      calls: t.calls,
      cost_usd: t.costUsd,
    })),
    by_agent: b.byAgent.map((a) => ({
      agent_name: a.agentName,
      llm_cost_usd: a.llmCostUsd,
      tool_cost_usd: a.toolCostUsd,
      cost_usd: a.costUsd,
    })),
    top_sessions: b.topSessions.map((s) => ({
      session_id: s.sessionId,
      agent_name: s.agentName,
      cost_usd: s.costUsd,
      last_call_at: s.lastCallAt.toISOString(),
    })),
  };
}
export type CostBreakdownJson = ReturnType<typeof toCostBreakdownJson>;
