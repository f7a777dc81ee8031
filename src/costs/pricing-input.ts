import { SpyglassError, type ValidationIssue } from '../errors.ts';
import { normalizeModelId } from './default-prices.ts';

/** A pricing write as the REST body says it (snake_case); GraphQL maps its input to this. */
export interface PricingInput {
  modelId: string;
  provider?: string | undefined;
  input?: number | undefined;
  output?: number | undefined;
  cacheRead?: number | null | undefined;
  cacheWrite?: number | null | undefined;
  effectiveFrom?: Date | undefined;
}

// Fastify's limit for a path parameter, so every stored id can be PATCHed and DELETEd by its path.
export const MAX_MODEL_ID = 100;
const MAX_PROVIDER = 100;
const PRICE_FIELDS = [
  ['input_per_1m_usd', 'input'],
  ['output_per_1m_usd', 'output'],
  ['cache_read_per_1m_usd', 'cacheRead'],
  ['cache_write_per_1m_usd', 'cacheWrite'],
] as const;
const KNOWN = new Set(['model_id', 'provider', 'effective_from', ...PRICE_FIELDS.map(([f]) => f)]);

/**
 * Parses a POST (`model_id` from the body, both prices required) or PATCH (`model_id` from the path,
 * any subset) body. Every problem is reported at once, each naming its field (docs/api.md).
 */
export function parsePricingInput(body: unknown, mode: { pathModelId?: string }): PricingInput {
  const issues: ValidationIssue[] = [];
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw invalid([{ loc: ['body'], msg: 'Input should be an object', type: 'dict_type' }]);
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b))
    if (!KNOWN.has(k))
      issues.push({
        loc: ['body', k],
        msg: `Unknown field; expected one of ${[...KNOWN].join(', ')}`,
        type: 'extra_forbidden',
      });

  const rawId = mode.pathModelId ?? b.model_id;
  const idLoc = mode.pathModelId === undefined ? ['body', 'model_id'] : ['path', 'model_id'];
  let modelId = '';
  if (typeof rawId !== 'string' || rawId.trim() === '')
    issues.push({
      loc: idLoc,
      msg: 'Field required: a non-empty model id such as "gpt-4o"',
      type: 'missing',
    });
  else if (rawId.length > MAX_MODEL_ID)
    issues.push({
      loc: idLoc,
      msg: `String should have at most ${MAX_MODEL_ID} characters`,
      type: 'string_too_long',
    });
  else if (/[\u0000-\u001f\u007f]/.test(rawId))
    issues.push({
      loc: idLoc,
      msg: 'Model id must not contain control characters',
      type: 'string_pattern_mismatch',
    });
  else modelId = normalizeModelId(rawId.trim());

  const input: PricingInput = { modelId };
  if (b.provider !== undefined) {
    if (
      typeof b.provider !== 'string' ||
      b.provider.trim() === '' ||
      b.provider.length > MAX_PROVIDER
    )
      issues.push({
        loc: ['body', 'provider'],
        msg: `Input should be a non-empty string of at most ${MAX_PROVIDER} characters`,
        type: 'string_type',
      });
    else input.provider = b.provider.trim();
  }
  for (const [field, key] of PRICE_FIELDS) {
    const v = b[field];
    const optional = key === 'cacheRead' || key === 'cacheWrite';
    if (v === undefined || (v === null && optional)) {
      if (v === null) input[key as 'cacheRead' | 'cacheWrite'] = null;
      else if (!optional && mode.pathModelId === undefined)
        issues.push({
          loc: ['body', field],
          msg: 'Field required: USD per 1M tokens',
          type: 'missing',
        });
      continue;
    }
    if (typeof v !== 'number' || !Number.isFinite(v))
      issues.push({
        loc: ['body', field],
        msg: 'Input should be a finite number (USD per 1M tokens)',
        type: 'float_type',
      });
    else if (v < 0)
      issues.push({
        loc: ['body', field],
        msg: 'Input should be greater than or equal to 0',
        type: 'greater_than_equal',
      });
    else if (v > 1_000_000)
      issues.push({
        loc: ['body', field],
        msg: 'Input should be at most 1000000 USD per 1M tokens',
        type: 'less_than_equal',
      });
    else input[key] = v;
  }
  if (b.effective_from !== undefined && b.effective_from !== null) {
    const d = typeof b.effective_from === 'string' ? new Date(b.effective_from) : new Date(NaN);
    if (Number.isNaN(d.getTime()))
      issues.push({
        loc: ['body', 'effective_from'],
        msg: 'Input should be an ISO 8601 datetime such as 2026-01-01T00:00:00Z',
        type: 'datetime_parsing',
      });
    else input.effectiveFrom = d;
  }
  if (issues.length > 0) throw invalid(issues);
  return input;
}

function invalid(issues: ValidationIssue[]): SpyglassError {
  return new SpyglassError('validation', 'invalid model pricing', { issues });
}
