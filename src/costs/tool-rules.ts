import picomatch from 'picomatch';
import type { CostRule } from '../config/types.ts';

interface CompiledRule {
  server: (name: string) => boolean;
  tool: (name: string) => boolean;
  costUsd: number;
}

const MEMO_LIMIT = 10_000;

/**
 * `costs.rules[]` compiled once: a tool call costs what the first rule whose server and tool globs
 * both match says, else 0 (docs/costs.md#how-a-span-is-priced). Results are remembered per server and tool, since a
 * deployment calls a few hundred distinct tools at most.
 */
export class ToolCostRules {
  private readonly rules: CompiledRule[];
  private readonly memo = new Map<string, Map<string, number>>();
  private memoSize = 0;

  constructor(rules: readonly CostRule[]) {
    this.rules = rules.map((r) => ({
      server: picomatch(r.server, { dot: true }),
      tool: picomatch(r.tool, { dot: true }),
      costUsd: r.costUsd,
    }));
  }

  get empty(): boolean {
    return this.rules.length === 0;
  }

  costOf(serverName: string, toolName: string): number {
    if (this.rules.length === 0) return 0;
    let tools = this.memo.get(serverName);
    const hit = tools?.get(toolName);
    if (hit !== undefined) return hit;
    const cost = this.rules.find((r) => r.server(serverName) && r.tool(toolName))?.costUsd ?? 0;
    if (this.memoSize >= MEMO_LIMIT) {
      this.memo.clear();
      this.memoSize = 0;
      tools = undefined;
    }
    if (tools === undefined) this.memo.set(serverName, (tools = new Map()));
    tools.set(toolName, cost);
    this.memoSize++;
    return cost;
  }
}
