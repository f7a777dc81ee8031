import { Type } from 'typebox';
import { bodyOptional } from './route-schema.ts';

/**
 * Route options for a JSON body that may be left out: no body reads as `{}` (a JSON `null` is a 422), so
 * the handler takes its defaults. Bodies are never type-coerced (route-schema.ts's
 * `validatorCompiler`): `{"server_name": 7}` is a 422 naming the field, not the string "7".
 * Usage: `r.post(url, { ...OPTIONAL_BODY, schema: { body, querystring } }, handler)`.
 */
export const OPTIONAL_BODY = { preValidation: bodyOptional } as const;

/** A string or null (one `type` list, so a wrong value is one issue, not one per branch). */
export const NullableString = (options: { maxLength?: number } = {}) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });
