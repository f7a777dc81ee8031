import type { ModelPrice } from './types.ts';

/**
 * Default LLM prices in USD per 1M tokens (decisions §8), shared by the server and the agent SDK:
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

const MODEL_MEMO_LIMIT = 1000;

/**
 * One model table compiled for the per-call path: keys longest first (the longest prefix wins) and
 * each raw model id remembered with its answer, so a session of a few models searches a few times.
 */
class CompiledModels {
  private readonly keys: [key: string, price: Price][];
  private readonly memo = new Map<string, Price | null>();

  constructor(models: Record<string, ModelPrice> | undefined) {
    const merged = new Map<string, Price>();
    for (const [key, p] of Object.entries(DEFAULT_PRICES))
      merged.set(key, { input: p.input, output: p.output });
    for (const [key, p] of Object.entries(models ?? {})) {
      // A malformed entry must not turn a model free or NaN: it is skipped (the default stays).
      if (!isPrice(p.inputPer1M) || !isPrice(p.outputPer1M)) continue;
      merged.set(normalizeModelId(key), { input: p.inputPer1M, output: p.outputPer1M });
    }
    this.keys = [...merged].sort((a, b) => b[0].length - a[0].length);
  }

  lookup(model: string): Price | null {
    let price = this.memo.get(model);
    if (price === undefined) {
      const id = normalizeModelId(model);
      price = this.keys.find(([key]) => prefixMatches(id, key))?.[1] ?? null;
      if (this.memo.size >= MODEL_MEMO_LIMIT) this.memo.clear();
      this.memo.set(model, price);
    }
    return price;
  }
}

const isPrice = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const tokens = (n: number): number => (Number.isFinite(n) && n > 0 ? n : 0);

const DEFAULT_MODELS = new CompiledModels(undefined);
// Keyed by the caller's table object: the SDK passes the same object on every call. A table is
// compiled once, so prices changed by mutating that object later are not seen (pass a new object).
const compiledModels = new WeakMap<object, CompiledModels>();

/**
 * An LLM call's cost in USD: the caller's `models` merged over DEFAULT_PRICES, longest matching
 * prefix of the normalised id wins. A missing or unknown model is priced at UNKNOWN_MODEL_PRICE and
 * marked estimated, so a call with tokens is never free by accident.
 */
export function llmCostUsd(
  model: string | undefined,
  inputTokens: number,
  outputTokens: number,
  models?: Record<string, ModelPrice>,
): { usd: number; estimated: boolean } {
  let table = DEFAULT_MODELS;
  if (models !== undefined) {
    let compiled = compiledModels.get(models);
    if (compiled === undefined) {
      compiled = new CompiledModels(models);
      compiledModels.set(models, compiled);
    }
    table = compiled;
  }
  const known = model === undefined || model === '' ? null : table.lookup(model);
  const price = known ?? UNKNOWN_MODEL_PRICE;
  return {
    usd: (tokens(inputTokens) * price.input + tokens(outputTokens) * price.output) / 1_000_000,
    estimated: known === null,
  };
}

const compiledTools = new WeakMap<object, Map<string, number>>();

/** A tool call's cost in USD: `server/tool`, then `server/*`, then `*`, else free. */
export function toolCostUsd(
  serverName: string,
  toolName: string,
  tools?: Record<string, number>,
): number {
  if (tools === undefined) return 0;
  let table = compiledTools.get(tools);
  if (table === undefined) {
    table = new Map(Object.entries(tools).filter((e): e is [string, number] => isPrice(e[1])));
    compiledTools.set(tools, table);
  }
  if (table.size === 0) return 0;
  return (
    table.get(`${serverName}/${toolName}`) ?? table.get(`${serverName}/*`) ?? table.get('*') ?? 0
  );
}
