import type { HourlyCostRow, TopSessionRow } from '../store/costs-repo.ts';

export const COST_WINDOWS = { '24h': 24, '7d': 168, '30d': 720 } as const;
export type CostWindow = keyof typeof COST_WINDOWS;

export interface CostBreakdown {
  window: CostWindow;
  since: string;
  until: string;
  total_cost_usd: number;
  llm_cost_usd: number;
  tool_cost_usd: number;
  by_model: {
    model_id: string;
    calls: number;
    input_tokens: number;
    output_tokens: number;
    cost_usd: number;
    estimated: boolean;
  }[];
  by_tool: { server_name: string; tool_name: string; calls: number; cost_usd: number }[];
  by_agent: { agent_name: string; llm_cost_usd: number; tool_cost_usd: number; cost_usd: number }[];
  top_sessions: {
    session_id: string;
    agent_name: string | null;
    cost_usd: number;
    last_call_at: string;
  }[];
}

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
  window: CostWindow,
  edges: { since: Date; until: Date },
  rows: readonly HourlyCostRow[],
  sessions: readonly TopSessionRow[],
): CostBreakdown {
  const models = new Map<string, CostBreakdown['by_model'][number]>();
  const tools = new Map<string, CostBreakdown['by_tool'][number]>();
  const agents = new Map<string, CostBreakdown['by_agent'][number]>();
  let llm = 0;
  let tool = 0;
  for (const r of rows) {
    const agent = agents.get(r.agent_name) ?? {
      agent_name: r.agent_name,
      llm_cost_usd: 0,
      tool_cost_usd: 0,
      cost_usd: 0,
    };
    agents.set(r.agent_name, agent);
    agent.cost_usd += r.cost_usd;
    if (r.span_type === 'tool_call') {
      tool += r.cost_usd;
      agent.tool_cost_usd += r.cost_usd;
      const key = `${r.server_name}\u0000${r.tool_name}`;
      const t = tools.get(key) ?? {
        server_name: r.server_name,
        tool_name: r.tool_name,
        calls: 0,
        cost_usd: 0,
      };
      tools.set(key, t);
      t.calls += r.calls;
      t.cost_usd += r.cost_usd;
      continue;
    }
    llm += r.cost_usd;
    agent.llm_cost_usd += r.cost_usd;
    // Agent runs and handoffs that reported no model and no tokens are not LLM calls.
    if (r.model_id === '' && r.input_tokens + r.output_tokens === 0) continue;
    const m = models.get(r.model_id) ?? {
      model_id: r.model_id,
      calls: 0,
      input_tokens: 0,
      output_tokens: 0,
      cost_usd: 0,
      estimated: false,
    };
    models.set(r.model_id, m);
    m.calls += r.calls;
    m.input_tokens += r.input_tokens;
    m.output_tokens += r.output_tokens;
    m.cost_usd += r.cost_usd;
    m.estimated ||= r.estimated_calls > 0;
  }
  const byCost = <T extends { cost_usd: number }>(
    items: Iterable<T>,
    name: (x: T) => string,
  ): T[] =>
    [...items]
      .map((x) => ({ ...x, ...roundCosts(x) }))
      .sort((a, b) => b.cost_usd - a.cost_usd || name(a).localeCompare(name(b)));
  return {
    window,
    since: edges.since.toISOString(),
    until: edges.until.toISOString(),
    total_cost_usd: usd(llm + tool),
    llm_cost_usd: usd(llm),
    tool_cost_usd: usd(tool),
    by_model: byCost(models.values(), (m) => m.model_id),
    by_tool: byCost(tools.values(), (t) => `${t.server_name}.${t.tool_name}`),
    by_agent: byCost(agents.values(), (a) => a.agent_name),
    top_sessions: sessions.map((s) => ({
      session_id: s.session_id,
      agent_name: s.agent_name,
      cost_usd: usd(s.cost_usd),
      last_call_at: s.last_call_at.toISOString(),
    })),
  };
}

/** Dollars to 1e-9: enough for one token of the cheapest model, without float noise from summing. */
export function usd(v: number): number {
  return Math.round(v * 1e9) / 1e9;
}

function roundCosts<T extends object>(x: T): Partial<T> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(x))
    if (k.endsWith('cost_usd') && typeof v === 'number') out[k] = usd(v);
  return out as Partial<T>;
}
