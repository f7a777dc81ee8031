import type { Span } from '../model/span.ts';
import type { PriceBook, PriceTable } from './price-book.ts';
import { UNKNOWN_MODEL_PRICE } from './default-prices.ts';
import type { ToolCostRules } from './tool-rules.ts';

/**
 * Sets each span's cost at ingest (docs/costs.md#how-a-span-is-priced), on the hot path:
 * - tool_call: the first matching `costs.rules[]` entry, else 0 (a definite "free", not unknown);
 *   tokens on a tool call are not priced, so LLM and tool costs never overlap;
 * - agent and handoff spans with tokens: tokens × the model price in effect at started_at, or the
 *   unknown-model price with cost_estimated = true; cache-read and cache-creation tokens (counted
 *   apart from input_tokens) at the model's cache prices, else its input price; thinking tokens
 *   (apart from output_tokens) at its output price;
 * - anything else: null (no cost reported).
 */
export function priceSpans(spans: readonly Span[], book: PriceBook, rules: ToolCostRules): void {
  let project = '';
  let table: PriceTable | null = null;
  for (const s of spans) {
    if (s.spanType === 'tool_call') {
      s.costUsd = rules.costOf(s.serverName, s.toolName);
      s.costEstimated = false;
      continue;
    }
    const cacheRead = s.cacheReadTokens ?? 0;
    const cacheWrite = s.cacheCreationTokens ?? 0;
    const thinking = s.thinkingTokens ?? 0;
    if (
      s.inputTokens === null &&
      s.outputTokens === null &&
      cacheRead + cacheWrite + thinking === 0
    ) {
      s.costUsd = null;
      s.costEstimated = null;
      continue;
    }
    if (table === null || s.projectId !== project) {
      project = s.projectId;
      table = book.table(project);
    }
    const record = table.lookup(s.modelId ?? '', s.startedAt.getTime());
    const price = record ?? UNKNOWN_MODEL_PRICE;
    // Cache tokens at the model's cache prices (its input price when it has none); thinking tokens as output.
    const cacheReadPrice = record?.cacheRead ?? price.input;
    const cacheWritePrice = record?.cacheWrite ?? price.input;
    s.costUsd =
      ((s.inputTokens ?? 0) * price.input +
        ((s.outputTokens ?? 0) + thinking) * price.output +
        cacheRead * cacheReadPrice +
        cacheWrite * cacheWritePrice) /
      1_000_000;
    s.costEstimated = record === null;
  }
}
