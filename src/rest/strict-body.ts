import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { AJV_OPTIONS } from './route-schema.ts';

const strict = new Ajv({ ...AJV_OPTIONS.customOptions, coerceTypes: false });
(ajvFormats as unknown as (ajv: Ajv) => void)(strict);

/**
 * A route's `validatorCompiler` where the JSON types of the body are the contract: the app's ajv
 * options without coercion, so `"model_id": 42` or `"input_per_1m_usd": true` stay 422s instead of
 * turning into "42" and 1. Its query and path schemas must then be text (they are, as sent).
 */
export const strictTypes: FastifySchemaCompiler<unknown> = ({ schema }) =>
  strict.compile(schema as object);
