import { describe, expect, it } from 'vitest';
import type { PriceBook } from '../../src/costs/price-book.ts';
import { PriceTable } from '../../src/costs/price-book.ts';
import { priceSpans } from '../../src/costs/span-pricer.ts';
import { ToolCostRules } from '../../src/costs/tool-rules.ts';
import type { Span } from '../../src/model/span.ts';
import type { PricingRow } from '../../src/store/costs-repo.ts';
import { span as storedSpan } from '../helpers/spans.ts';

const T = Date.UTC(2026, 5, 1);
const row = (modelId: string, input: number, output: number, from: number): PricingRow => ({
  projectId: 'p',
  modelId,
  provider: 'x',
  inputPer1mUsd: input,
  outputPer1mUsd: output,
  cacheReadPer1mUsd: null,
  cacheWritePer1mUsd: null,
  effectiveFrom: new Date(from),
  updatedAt: new Date(from),
});
const book = (table: PriceTable) => ({ table: () => table }) as unknown as PriceBook;
/** An agent span at T (not a tool call, so only tokens price it); `over` sets any field. */
const span = (over: Partial<Span>): Span =>
  storedSpan('p', new Date(T), { spanType: 'agent', ...over });

describe('price table', () => {
  it('matches the longest model prefix and the latest record from before the span', () => {
    const table = new PriceTable([
      row('gpt-4o', 5, 20, T),
      row('gpt-4o', 7, 30, T + 1000),
      row('acme', 1, 1, T),
    ]);
    expect(table.lookup('gpt-4o-mini-2024', T + 5000)?.input).toBe(0.15); // the longer default id wins over the custom gpt-4o
    expect(table.lookup('OpenAI/GPT-4o-2024-08-06', T - 1)).toMatchObject({
      input: 2.5,
      source: 'default',
    });
    expect(table.lookup('gpt-4o', T)).toMatchObject({ input: 5, source: 'custom' });
    expect(table.lookup('gpt-4o', T + 999)?.input).toBe(5);
    expect(table.lookup('gpt-4o', T + 1000)?.input).toBe(7);
    expect(table.lookup('gpt-4odd', T)).toBeNull(); // a prefix counts only at a '-' or '@' boundary
    // A model with no default is unknown before its first record.
    expect(table.lookup('acme-2', T - 1)).toBeNull();
    expect(table.lookup('acme-2', T)?.input).toBe(1);
  });
});

describe('tool cost rules', () => {
  it('takes the first rule whose server and tool globs match, else 0', () => {
    const rules = new ToolCostRules([
      { server: 'github', tool: 'create_*', costUsd: 0.01 },
      { server: 'git*', tool: '*', costUsd: 0.002 },
      { server: '*', tool: 'search', costUsd: 0.005 },
    ]);
    expect(rules.costOf('github', 'create_issue')).toBe(0.01);
    expect(rules.costOf('github', 'create_issue')).toBe(0.01); // remembered
    expect(rules.costOf('github', 'list_issues')).toBe(0.002);
    expect(rules.costOf('gitlab', 'search')).toBe(0.002);
    expect(rules.costOf('brave', 'search')).toBe(0.005);
    expect(rules.costOf('brave', 'Search')).toBe(0);
    expect(new ToolCostRules([]).costOf('github', 'create_issue')).toBe(0);
  });
});

describe('priceSpans', () => {
  it('prices LLM spans by tokens, tool calls by rules, and leaves spans without tokens null', () => {
    const spans = [
      span({ modelId: 'gpt-4o', inputTokens: 1000, outputTokens: 500 }),
      span({ modelId: 'mystery', inputTokens: 1000, outputTokens: null }),
      span({ modelId: null, inputTokens: null, outputTokens: null }),
      span({
        spanType: 'tool_call',
        serverName: 'github',
        toolName: 'create_issue',
        inputTokens: 99,
        modelId: 'gpt-4o',
      }),
      span({ spanType: 'tool_call', serverName: 'fs', toolName: 'read' }),
    ];
    priceSpans(
      spans,
      book(new PriceTable([])),
      new ToolCostRules([{ server: 'github', tool: 'create_*', costUsd: 0.01 }]),
    );
    expect(spans.map((s) => [s.costUsd, s.costEstimated])).toEqual([
      [0.0075, false],
      [0.01, true],
      [null, null],
      [0.01, false],
      [0, false],
    ]);
  });

  // Its speed is a benchmark's business (npm run bench), not a timed test's.
  it('prices a batch without models or rules: tool calls at 0, other spans unpriced', () => {
    const spans = Array.from({ length: 1_000 }, (_, i) =>
      span({
        spanType: i % 2 ? 'tool_call' : 'handoff',
        serverName: `s${i % 50}`,
        toolName: `t${i % 7}`,
      }),
    );
    const rules = new ToolCostRules([]);
    const table = book(new PriceTable([]));
    priceSpans(spans, table, rules);
    expect(spans[1]?.costUsd).toBe(0);
    expect(spans[0]?.costUsd).toBeNull();
  });
});
