/**
 * The constructor's options in layers (options → environment → defaults), checked once: a bad value
 * throws a TypeError naming the field at construction, not at the first call.
 */
import {
  DEFAULT_PREVENTION,
  flattenNested,
  nestedFieldName,
  validatePrevention,
  withDefaults,
  type PreventionConfig,
} from './config.ts';
import type { GraphLimits } from './guards/types.ts';
import type { ResolvedSharedBreakers } from './shared-breakers.ts';
import type { PricingTable, SdkLogger, SpyglassOptions } from './types.ts';

export interface ResolvedOptions {
  url: string;
  apiKey: string | undefined;
  projectId: string | undefined;
  agentName: string;
  prevention: Readonly<PreventionConfig>;
  pricing: PricingTable;
  graph: GraphLimits;
  flushIntervalMs: number;
  flushTimeoutMs: number;
  maxBufferedSpans: number;
  configRefreshMs: number;
  logger: SdkLogger;
  clock: () => number;
  sharedBreakers: ResolvedSharedBreakers | null;
}

const consoleLogger: SdkLogger = {
  warn: (message, details) =>
    details === undefined ? console.warn(message) : console.warn(message, details),
  info: (message, details) =>
    details === undefined ? console.info(message) : console.info(message, details),
};

const nonEmpty = (v: string | undefined): string | undefined =>
  v === undefined || v === '' ? undefined : v;

function positiveInt(field: string, value: unknown, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < (allowZero ? 0 : 1)) {
    throw new TypeError(`Spyglass: ${field} must be an integer ≥ ${allowZero ? 0 : 1}`);
  }
  return value;
}

export function resolveOptions(
  options: SpyglassOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): ResolvedOptions {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('Spyglass: options must be an object');
  const url = options.url ?? nonEmpty(env.SPYGLASS_URL) ?? 'http://127.0.0.1:8000';
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new TypeError(`Spyglass: url must be an http(s) URL, got ${JSON.stringify(url)}`);
  }
  const str = (field: string, v: unknown): string | undefined => {
    if (v !== undefined && (typeof v !== 'string' || v === ''))
      throw new TypeError(`Spyglass: ${field} must be a non-empty string`);
    return v as string | undefined;
  };
  const agentName = str('agentName', options.agentName) ?? 'agent';
  if (options.logger !== undefined && typeof options.logger?.warn !== 'function')
    throw new TypeError('Spyglass: logger must have a warn(message, details) method');
  if (options.clock !== undefined && typeof options.clock !== 'function')
    throw new TypeError('Spyglass: clock must be a function');
  if (options.logger?.info !== undefined && typeof options.logger.info !== 'function')
    throw new TypeError('Spyglass: logger.info must be a method when given');
  const graph = options.graph ?? {};
  const maxCost = graph.maxCostUsd;
  if (
    maxCost !== undefined &&
    (typeof maxCost !== 'number' || !Number.isFinite(maxCost) || maxCost <= 0)
  )
    throw new TypeError('Spyglass: graph.maxCostUsd must be a positive number');
  return {
    url,
    apiKey: str('apiKey', options.apiKey) ?? nonEmpty(env.SPYGLASS_API_KEY),
    projectId: str('projectId', options.projectId) ?? nonEmpty(env.SPYGLASS_PROJECT_ID),
    agentName,
    prevention: resolvePrevention(options.prevention),
    pricing: resolvePricing(options.pricing),
    graph: {
      maxNodeIterations: positiveInt('graph.maxNodeIterations', graph.maxNodeIterations, 10, true),
      maxCostUsd: maxCost ?? null,
    },
    flushIntervalMs: positiveInt('flushIntervalMs', options.flushIntervalMs, 1000),
    flushTimeoutMs: positiveInt('flushTimeoutMs', options.flushTimeoutMs, 5000),
    maxBufferedSpans: positiveInt('maxBufferedSpans', options.maxBufferedSpans, 10_000),
    configRefreshMs: positiveInt('configRefreshMs', options.configRefreshMs, 15_000),
    logger: options.logger ?? consoleLogger,
    clock: options.clock ?? Date.now,
    sharedBreakers: resolveShared(options.sharedBreakers),
  };
}

function resolveShared(o: SpyglassOptions['sharedBreakers']): ResolvedSharedBreakers | null {
  if (o === undefined) return null;
  if (typeof o !== 'object' || o === null)
    throw new TypeError('Spyglass: sharedBreakers must be { redisUrl } or { redis }');
  const keyPrefix = o.keyPrefix ?? 'spyglass';
  if (typeof keyPrefix !== 'string' || keyPrefix === '')
    throw new TypeError('Spyglass: sharedBreakers.keyPrefix must be a non-empty string');
  const timeoutMs = positiveInt('sharedBreakers.timeoutMs', o.timeoutMs, 50);
  if ('redis' in o) {
    const r = o.redis as Partial<Record<'eval' | 'evalsha' | 'quit', unknown>> | null;
    if (
      typeof r?.eval !== 'function' ||
      typeof r.evalsha !== 'function' ||
      typeof r.quit !== 'function'
    )
      throw new TypeError(
        'Spyglass: sharedBreakers.redis must be a Redis client with eval, evalsha and quit (an ioredis Redis fits)',
      );
    return { source: { redis: o.redis }, keyPrefix, timeoutMs };
  }
  const url = (o as { redisUrl?: unknown }).redisUrl;
  if (typeof url !== 'string' || !/^rediss?:\/\//.test(url))
    throw new TypeError('Spyglass: sharedBreakers.redisUrl must be a redis:// or rediss:// URL');
  return { source: { redisUrl: url }, keyPrefix, timeoutMs };
}

/** The nested constructor shape flattened over the spec defaults, then validated as a whole. */
function resolvePrevention(nested: SpyglassOptions['prevention']): Readonly<PreventionConfig> {
  if (nested === undefined) return DEFAULT_PREVENTION;
  if (typeof nested !== 'object' || nested === null)
    throw new TypeError('Spyglass: prevention must be an object in the nested shape');
  const { values, issues } = flattenNested(nested as Record<string, unknown>);
  const first = issues[0];
  if (first) throw new TypeError(`Spyglass: prevention.${first.field} ${first.message}`);
  const merged = withDefaults(values);
  const problem = validatePrevention(merged)[0];
  if (problem)
    throw new TypeError(
      `Spyglass: prevention.${nestedFieldName(problem.field as keyof PreventionConfig)} ${problem.message}`,
    );
  return Object.freeze(merged as unknown as PreventionConfig);
}

function resolvePricing(pricing: PricingTable | undefined): PricingTable {
  if (pricing === undefined) return {};
  if (typeof pricing !== 'object' || pricing === null)
    throw new TypeError('Spyglass: pricing must be an object');
  for (const [model, price] of Object.entries(pricing.models ?? {})) {
    for (const k of ['inputPer1M', 'outputPer1M'] as const) {
      const v: unknown = price?.[k];
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
        throw new TypeError(`Spyglass: pricing.models.${model}.${k} must be a number ≥ 0`);
    }
  }
  for (const [tool, usd] of Object.entries(pricing.tools ?? {})) {
    if (typeof usd !== 'number' || !Number.isFinite(usd) || usd < 0)
      throw new TypeError(`Spyglass: pricing.tools.${tool} must be a number ≥ 0`);
  }
  return pricing;
}
