import { Type } from 'typebox';
import { Ajv, type Options } from 'ajv';
import ajvFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { AJV_OPTIONS } from './route-schema.ts';

/**
 * A route's `validatorCompiler` that coerces query strings and path parameters (they arrive as
 * text) but never a JSON body: `{"server_name": 7}` is a 422 naming the field, not the string "7".
 * A body that is absent passes (the route reads its defaults). Usage: `r.post(url, { ...STRICT_BODY, schema: { body, querystring } }, handler)`.
 */
const base: Options = { ...AJV_OPTIONS.customOptions, strict: false, addUsedSchema: false };
const coercing = withFormats(new Ajv(base));
const exact = withFormats(new Ajv({ ...base, coerceTypes: false }));

function withFormats(ajv: Ajv): Ajv {
  (ajvFormats as unknown as (a: Ajv) => Ajv)(ajv);
  return ajv;
}

/** An absent body (no payload, or JSON null) is the empty request, not a body of the wrong type. */
const compiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart !== 'body') return coercing.compile(schema as object);
  const validate = exact.compile(schema as object);
  const check = (data: unknown) => {
    if (data === undefined || data === null) return true;
    const ok = validate(data);
    check.errors = validate.errors;
    return ok;
  };
  check.errors = null as typeof validate.errors;
  return check;
};

export const STRICT_BODY = { validatorCompiler: compiler } as const;

/** A string or null (one `type` list, so a wrong value is one issue, not one per branch). */
export const NullableString = (options: { maxLength?: number } = {}) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });
