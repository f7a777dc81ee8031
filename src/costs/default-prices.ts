/**
 * Default LLM prices in USD per 1M tokens (docs/costs.md). The agent SDK ships the same table
 * (sdk/src/pricing.ts) for its local budget estimates; test/sdk/contract.test.ts holds them equal:
 * the providers' public list prices for standard (non-batch, short-context) use as of 2025-11.
 * Projects override them through /api/costs/models; SDK users through the `pricing` option. Model ids often carry a date or variant suffix, so the longest matching
 * prefix wins. Unknown models are never free.
 */
export interface Price {
  input: number;
  output: number;
}

export interface DefaultPrice extends Price {
  provider: string;
  cacheRead?: number;
  cacheWrite?: number;
}

/** The date the shipped table was checked against the providers' price pages (docs/costs.md). */
export const DEFAULT_PRICES_AS_OF = '2025-11-01';

export const UNKNOWN_MODEL_PRICE: Price = { input: 10, output: 30 };

const openai = (input: number, output: number, cacheRead?: number): DefaultPrice => ({
  provider: 'openai',
  input,
  output,
  ...(cacheRead === undefined ? {} : { cacheRead }),
});
// Anthropic: cache reads at 0.1× input, 5-minute cache writes at 1.25× input.
const anthropic = (input: number, output: number): DefaultPrice => ({
  provider: 'anthropic',
  input,
  output,
  cacheRead: input / 10,
  cacheWrite: input * 1.25,
});
const google = (input: number, output: number): DefaultPrice => ({
  provider: 'google',
  input,
  output,
});
const mistral = (input: number, output: number): DefaultPrice => ({
  provider: 'mistral',
  input,
  output,
});

export const DEFAULT_PRICES: Record<string, DefaultPrice> = {
  'gpt-4o': openai(2.5, 10, 1.25),
  'gpt-4o-mini': openai(0.15, 0.6, 0.075),
  'gpt-4.1': openai(2, 8, 0.5),
  'gpt-4.1-mini': openai(0.4, 1.6, 0.1),
  'gpt-4.1-nano': openai(0.1, 0.4, 0.025),
  'gpt-5': openai(1.25, 10, 0.125),
  'gpt-5-mini': openai(0.25, 2, 0.025),
  'gpt-5-nano': openai(0.05, 0.4, 0.005),
  o1: openai(15, 60, 7.5),
  o3: openai(2, 8, 0.5),
  'o3-mini': openai(1.1, 4.4, 0.55),
  'o4-mini': openai(1.1, 4.4, 0.275),
  'claude-3-5-haiku': anthropic(0.8, 4),
  'claude-3-5-sonnet': anthropic(3, 15),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-sonnet-4-5': anthropic(3, 15),
  'claude-opus-4': anthropic(15, 75),
  'claude-opus-4-1': anthropic(15, 75),
  'claude-haiku-4': anthropic(1, 5),
  'claude-haiku-4-5': anthropic(1, 5),
  'gemini-1.5-pro': google(1.25, 5),
  'gemini-2.0-flash': google(0.1, 0.4),
  'gemini-2.5-pro': google(1.25, 10),
  'gemini-2.5-flash': google(0.3, 2.5),
  'gemini-2.5-flash-lite': google(0.1, 0.4),
  'mistral-large': mistral(2, 6),
  'mistral-small': mistral(0.1, 0.3),
};

/** The form every model id is matched in: lower case, without a `provider/` prefix. */
export function normalizeModelId(modelId: string): string {
  return modelId.toLowerCase().replace(/^[a-z]+\//, '');
}

/** True when `key` prices `id`: the same id, or the id with a `-suffix` or `@version`. */
export function prefixMatches(id: string, key: string): boolean {
  return id === key || (id.startsWith(key) && (id[key.length] === '-' || id[key.length] === '@'));
}
