import type { CostRule } from './types.ts';

const RULE_KEYS = new Set(['server', 'tool', 'cost_usd']);

/**
 * `costs.rules[]` (docs/costs.md#how-a-span-is-priced): `{server, tool, cost_usd}` with globs on server and tool names
 * (either may be left out for `*`). Problems name the rule by its position.
 */
export function parseCostRules(raw: unknown, problems: string[]): CostRule[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    problems.push('costs.rules must be a list of {server, tool, cost_usd}');
    return [];
  }
  const rules: CostRule[] = [];
  raw.forEach((r: unknown, i) => {
    const at = `costs.rules[${i}]`;
    if (typeof r !== 'object' || r === null || Array.isArray(r)) {
      problems.push(`${at} must be a mapping with server, tool and cost_usd`);
      return;
    }
    const rule = r as Record<string, unknown>;
    for (const k of Object.keys(rule))
      if (!RULE_KEYS.has(k))
        problems.push(`${at}: unknown key "${k}" (expected server, tool, cost_usd)`);
    const glob = (k: 'server' | 'tool'): string | null => {
      const v = rule[k] ?? '*';
      if (typeof v === 'string' && v !== '') return v;
      problems.push(`${at}.${k} must be a non-empty glob such as "github" or "*"`);
      return null;
    };
    const server = glob('server');
    const tool = glob('tool');
    const cost = typeof rule.cost_usd === 'string' ? Number(rule.cost_usd) : rule.cost_usd;
    if (typeof cost !== 'number' || !Number.isFinite(cost) || cost < 0) {
      problems.push(
        `${at}.cost_usd must be a number of dollars per call, 0 or more (got ${JSON.stringify(rule.cost_usd)})`,
      );
      return;
    }
    if (server !== null && tool !== null) rules.push({ server, tool, costUsd: cost });
  });
  return rules;
}
