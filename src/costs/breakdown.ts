import {
  COST_WINDOWS,
  type AgentCost,
  type CostBreakdown,
  type CostPoint,
  type CostRange,
  type CostWindow,
  type ModelCost,
  type ToolCost,
} from '../model/cost.ts';
import type { HourlyCostRow, HourlySeriesRow, TopSessionRow } from '../store/costs-repo.ts';

export { COST_WINDOWS, type CostWindow } from '../model/cost.ts';

const HOUR = 3_600_000;

/**
 * The window's hour-aligned edges: `until` is the end of the current hour, `since` whole hours
 * before it, so "24h" is the current (partial) hour and the 23 before it. The rollup keeps hours,
 * so finer edges could not be honest.
 */
export function windowEdges(window: CostWindow, now: Date): { since: Date; until: Date } {
  const until = Math.floor(now.getTime() / HOUR) * HOUR + HOUR;
  return { since: new Date(until - COST_WINDOWS[window] * HOUR), until: new Date(until) };
}

/** Groups the window's rollup rows by model, tool and agent; everything sorted by cost, highest first. */
export function buildBreakdown(
  range: CostRange,
  rows: readonly HourlyCostRow[],
  sessions: readonly TopSessionRow[],
): CostBreakdown {
  const models = new Map<string, ModelCost>();
  const tools = new Map<string, ToolCost>();
  const agents = new Map<string, AgentCost>();
  let llm = 0;
  let tool = 0;
  for (const r of rows) {
    const agent = agents.get(r.agent_name) ?? {
      agentName: r.agent_name,
      llmCostUsd: 0,
      toolCostUsd: 0,
      costUsd: 0,
    };
    agents.set(r.agent_name, agent);
    agent.costUsd += r.cost_usd;
    if (r.span_type === 'tool_call') {
      tool += r.cost_usd;
      agent.toolCostUsd += r.cost_usd;
      const key = `${r.server_name}\u0000${r.tool_name}`;
      const t = tools.get(key) ?? {
        serverName: r.server_name,
        toolName: r.tool_name,
        calls: 0,
        costUsd: 0,
      };
      tools.set(key, t);
      t.calls += r.calls;
      t.costUsd += r.cost_usd;
      continue;
    }
    llm += r.cost_usd;
    agent.llmCostUsd += r.cost_usd;
    // Agent runs and handoffs that reported no model and no tokens are not LLM calls.
    if (r.model_id === '' && r.input_tokens + r.output_tokens === 0) continue;
    const m = models.get(r.model_id) ?? {
      modelId: r.model_id,
      calls: 0,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      estimated: false,
    };
    models.set(r.model_id, m);
    m.calls += r.calls;
    m.inputTokens += r.input_tokens;
    m.outputTokens += r.output_tokens;
    m.costUsd += r.cost_usd;
    m.estimated ||= r.estimated_calls > 0;
  }
  const byCost = <T extends object & { costUsd: number }>(
    items: Iterable<T>,
    name: (x: T) => string,
  ): T[] =>
    [...items]
      .map((x) => ({ ...x, ...roundCosts(x) }))
      .sort((a, b) => b.costUsd - a.costUsd || name(a).localeCompare(name(b)));
  return {
    window: range.window,
    since: range.since,
    until: range.until,
    totalCostUsd: usd(llm + tool),
    llmCostUsd: usd(llm),
    toolCostUsd: usd(tool),
    byModel: byCost(models.values(), (m) => m.modelId),
    byTool: byCost(tools.values(), (t) => `${t.serverName}.${t.toolName}`),
    byAgent: byCost(agents.values(), (a) => a.agentName),
    topSessions: sessions.map((s) => ({
      sessionId: s.session_id,
      agentName: s.agent_name,
      costUsd: usd(s.cost_usd),
      lastCallAt: s.last_call_at,
    })),
  };
}

/** One point per hour of the range, zero where the rollup has no row (at most 720: the range is bounded). */
export function buildSeries(range: CostRange, rows: readonly HourlySeriesRow[]): CostPoint[] {
  const byHour = new Map(rows.map((r) => [r.hour.getTime(), r]));
  const out: CostPoint[] = [];
  for (let t = range.since.getTime(); t < range.until.getTime(); t += HOUR) {
    const r = byHour.get(t);
    const llm = usd(r?.llm_cost_usd ?? 0);
    const tool = usd(r?.tool_cost_usd ?? 0);
    out.push({ at: new Date(t), llmCostUsd: llm, toolCostUsd: tool, costUsd: usd(llm + tool) });
  }
  return out;
}

/** Dollars to 1e-9: enough for one token of the cheapest model, without float noise from summing. */
export function usd(v: number): number {
  return Math.round(v * 1e9) / 1e9;
}

function roundCosts<T extends object>(x: T): Partial<T> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(x))
    if (/(^c|C)ostUsd$/.test(k) && typeof v === 'number') out[k] = usd(v);
  return out as Partial<T>;
}
