/**
 * Default LLM prices in USD per 1M tokens (decisions §8). Model ids often carry a date or
 * variant suffix, so the longest matching prefix wins. Unknown models are never free.
 */
export interface Price {
  input: number;
  output: number;
}

export const UNKNOWN_MODEL_PRICE: Price = { input: 10, output: 30 };

export const DEFAULT_PRICES: Record<string, Price> = {
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  o3: { input: 2, output: 8 },
  'o4-mini': { input: 1.1, output: 4.4 },
  'claude-3-5-haiku': { input: 0.8, output: 4 },
  'claude-3-5-sonnet': { input: 3, output: 15 },
  'claude-3-7-sonnet': { input: 3, output: 15 },
  'claude-sonnet-4': { input: 3, output: 15 },
  'claude-opus-4': { input: 15, output: 75 },
  'claude-haiku-4': { input: 1, output: 5 },
  'gemini-1.5-pro': { input: 1.25, output: 5 },
  'gemini-2.0-flash': { input: 0.1, output: 0.4 },
  'gemini-2.5-pro': { input: 1.25, output: 10 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5 },
};

const BY_LENGTH = Object.keys(DEFAULT_PRICES).sort((a, b) => b.length - a.length);

export function priceOf(modelId: string): { price: Price; known: boolean } {
  const id = modelId.toLowerCase().replace(/^[a-z]+\//, '');
  const match = BY_LENGTH.find((m) => id === m || id.startsWith(`${m}-`) || id.startsWith(`${m}@`));
  return match ? { price: DEFAULT_PRICES[match] as Price, known: true } : { price: UNKNOWN_MODEL_PRICE, known: false };
}

/** Cost of one LLM call (estimated: priced as an unknown model), or null when it reported no tokens. */
export function estimateCost(modelId: string | null, inputTokens: number | null, outputTokens: number | null): { usd: number; estimated: boolean } | null {
  if (inputTokens === null && outputTokens === null) return null;
  const { price, known } = priceOf(modelId ?? '');
  return { usd: ((inputTokens ?? 0) * price.input + (outputTokens ?? 0) * price.output) / 1_000_000, estimated: !known };
}
