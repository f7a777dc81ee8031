import { SpyglassError, type ValidationIssue } from '../errors.ts';
import type { ModelPriceInput } from '../model/cost.ts';
import { normalizeModelId } from './default-prices.ts';

// Fastify's limit for a path parameter, so every stored id can be PATCHed and DELETEd by its path.
export const MAX_MODEL_ID = 100;
export const MAX_PROVIDER = 100;
/** The highest price a record may hold, USD per 1M tokens. */
export const MAX_PRICE = 1_000_000;

/** The API's name of each price, for the issues (docs/costs.md). */
const PRICE_FIELDS = [
  ['inputPer1mUsd', 'input_per_1m_usd'],
  ['outputPer1mUsd', 'output_per_1m_usd'],
  ['cacheReadPer1mUsd', 'cache_read_per_1m_usd'],
  ['cacheWritePer1mUsd', 'cache_write_per_1m_usd'],
] as const;

/**
 * Checks a price write, whichever adapter it came through: the model id (`idLoc` says where the
 * caller gave it), the prices (`both` = a new model needs input and output), the provider and the
 * date. Every problem is reported at once, each under the API's field name (docs/api.md).
 * Answers the normalised model id.
 */
export function checkPriceInput(
  rawId: string,
  idLoc: 'body' | 'path',
  input: ModelPriceInput,
  both: boolean,
): string {
  const issues: ValidationIssue[] = [];
  const loc = [idLoc, 'model_id'];
  if (rawId.trim() === '')
    issues.push({
      loc,
      msg: 'Field required: a non-empty model id such as "gpt-4o"',
      type: 'missing',
    });
  else if (rawId.length > MAX_MODEL_ID)
    issues.push({
      loc,
      msg: `String should have at most ${MAX_MODEL_ID} characters`,
      type: 'string_too_long',
    });
  else if (/[\u0000-\u001f\u007f]/.test(rawId))
    issues.push({
      loc,
      msg: 'Model id must not contain control characters',
      type: 'string_pattern_mismatch',
    });
  const p = input.provider;
  if (p !== undefined && (p.trim() === '' || p.length > MAX_PROVIDER))
    issues.push({
      loc: ['body', 'provider'],
      msg: `Input should be a non-empty string of at most ${MAX_PROVIDER} characters`,
      type: 'string_type',
    });
  for (const [key, field] of PRICE_FIELDS) {
    const v = input[key];
    if (v === undefined || v === null) {
      if (both && (key === 'inputPer1mUsd' || key === 'outputPer1mUsd'))
        issues.push({
          loc: ['body', field],
          msg: 'Field required: USD per 1M tokens',
          type: 'missing',
        });
    } else if (!Number.isFinite(v))
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
    else if (v > MAX_PRICE)
      issues.push({
        loc: ['body', field],
        msg: `Input should be at most ${MAX_PRICE} USD per 1M tokens`,
        type: 'less_than_equal',
      });
  }
  if (input.effectiveFrom !== undefined && Number.isNaN(input.effectiveFrom.getTime()))
    issues.push({
      loc: ['body', 'effective_from'],
      msg: 'Input should be an ISO 8601 datetime such as 2026-01-01T00:00:00Z',
      type: 'datetime_parsing',
    });
  if (issues.length > 0) throw new SpyglassError('validation', 'invalid model pricing', { issues });
  return normalizeModelId(rawId.trim());
}
