import { describe, expect, it } from 'vitest';
import { llmCostUsd, toolCostUsd } from '../../sdk/src/pricing.ts';

// docs/sdk.md#guards "Unknown model pricing" and the SDK's pricing option (LLM models and tools).
const M = 1_000_000;

describe('LLM cost', () => {
  it('prices a known model from the shipped table', () => {
    expect(llmCostUsd('gpt-4o', M, M)).toEqual({ usd: 12.5, estimated: false });
  });

  it('matches a dated or provider-prefixed id by its longest known prefix', () => {
    expect(llmCostUsd('gpt-4o-2024-08-06', M, 0)).toEqual({ usd: 2.5, estimated: false });
    expect(llmCostUsd('gpt-4o-mini-2024-07-18', M, 0)).toEqual({ usd: 0.15, estimated: false });
    expect(llmCostUsd('anthropic/Claude-Sonnet-4-5-20250929', 0, M)).toEqual({
      usd: 15,
      estimated: false,
    });
  });

  it("the caller's table overrides and extends the defaults", () => {
    const models = {
      'gpt-4o': { inputPer1M: 1, outputPer1M: 2 },
      'my-llm': { inputPer1M: 0.5, outputPer1M: 0.5 },
    };
    expect(llmCostUsd('gpt-4o-2024-08-06', M, M, models)).toEqual({ usd: 3, estimated: false });
    expect(llmCostUsd('my-llm-v2', 2 * M, 0, models)).toEqual({ usd: 1, estimated: false });
    // Entries the caller did not override keep their default price.
    expect(llmCostUsd('gpt-4o-mini', M, 0, models).usd).toBe(0.15);
  });

  it('an unknown or missing model is estimated at 10 / 30 per 1M tokens, never zero', () => {
    expect(llmCostUsd('acme-frontier-9', M, M)).toEqual({ usd: 40, estimated: true });
    expect(llmCostUsd(undefined, 1000, 1000)).toEqual({ usd: 0.04, estimated: true });
    expect(llmCostUsd('', 1, 0).usd).toBeGreaterThan(0);
    // A prefix must end at `-` or `@`: gpt-4oz is not gpt-4o.
    expect(llmCostUsd('gpt-4oz', M, 0)).toEqual({ usd: 10, estimated: true });
  });

  it('ignores malformed token counts and prices instead of producing NaN', () => {
    expect(llmCostUsd('gpt-4o', Number.NaN, -5)).toEqual({ usd: 0, estimated: false });
    expect(
      llmCostUsd('gpt-4o', M, 0, { 'gpt-4o': { inputPer1M: Number.NaN, outputPer1M: 1 } }).usd,
    ).toBe(2.5);
  });
});

describe('tool cost', () => {
  const tools = { 'github/create_issue': 0.02, 'github/*': 0.01, '*': 0.001 };

  it('looks up server/tool, then server/*, then *', () => {
    expect(toolCostUsd('github', 'create_issue', tools)).toBe(0.02);
    expect(toolCostUsd('github', 'list_issues', tools)).toBe(0.01);
    expect(toolCostUsd('everything', 'echo', tools)).toBe(0.001);
  });

  it('tools are free unless listed', () => {
    expect(toolCostUsd('everything', 'echo', { 'github/*': 0.01 })).toBe(0);
    expect(toolCostUsd('everything', 'echo')).toBe(0);
  });
});
