import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import type {
  FastifyInstance,
  FastifyRequest,
  FastifySchema,
  FastifySchemaCompiler,
  FastifySchemaValidationError,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { SpyglassError, type ValidationIssue } from '../errors.ts';

/**
 * Route schemas (TypeBox, compiled by Fastify's ajv) for params, query and body. A request that
 * fails them gets docs/api.md's 422 body with every problem at once:
 * `{"detail":[{"loc":["query","limit"],"msg":"...","type":"int_type"}]}`.
 *
 * Usage in a route module:
 *   const r = typed(app);
 *   r.get('/api/things/:id', { schema: { params: T.Object({ id: T.String() }) } }, async (req) => ...)
 * and `req.params.id` is typed.
 */
export function typed(app: FastifyInstance) {
  return app.withTypeProvider<TypeBoxTypeProvider>();
}

/** What both compilers below share: report all problems, defaults filled in, no silent removal. */
const AJV_BASE: Options = {
  allErrors: true,
  coerceTypes: 'array',
  useDefaults: true,
  removeAdditional: false,
  // `type: ['string', 'null']` is how a nullable field is written; without this ajv's strict
  // mode prints a warning line to stderr (not JSON), breaking the log stream.
  allowUnionTypes: true,
  // The same route schema object may be compiled for several routes: never register it by $id.
  addUsedSchema: false,
  // The route schemas are ours (TypeBox): not checked against the meta-schema, whose compile cost
  // each instance a tenth of a second or more at start-up (docs/benchmarks.md).
  validateSchema: false,
};

/**
 * Fastify's validator compiler for the app: query strings, path parameters and headers are text and
 * coerce (`?limit=5` is the integer 5); a JSON body does not, so `{"name": 5}` is a 422, not "5".
 */
export const validatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  // Compiled on the route's first request, not when the app starts: compiling every route's
  // schemas took about a quarter of a second of a start-up (docs/benchmarks.md).
  let compiled: ValidateFunction | undefined;
  const validate = (...args: Parameters<ValidateFunction>) => {
    compiled ??= (httpPart === 'body' ? jsonAjv : textAjv).compile(schema as object);
    const ok = compiled(...args);
    // Fastify reads the problems from the function it was given.
    validate.errors = compiled.errors;
    return ok;
  };
  validate.errors = null as ValidateFunction['errors'];
  return validate;
};

const textAjv = withFormats(new Ajv(AJV_BASE));
const jsonAjv = withFormats(new Ajv({ ...AJV_BASE, coerceTypes: false }));

function withFormats(ajv: Ajv): Ajv {
  (ajvFormats as unknown as (a: Ajv) => Ajv)(ajv);
  return ajv;
}

const PLACE: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

/** Fastify's `schemaErrorFormatter`: ajv errors become one SpyglassError with every issue. */
export function schemaErrorFormatter(
  errors: FastifySchemaValidationError[],
  dataVar: string,
): Error {
  const place = PLACE[dataVar] ?? dataVar;
  // An `if`'s own error ("must match then schema") repeats what the branch's errors say.
  const issues = (errors as unknown as ErrorObject[])
    .filter((e) => e.keyword !== 'if')
    .map((e) => toIssue(place, e));
  return new SpyglassError('validation', issues[0]?.msg ?? 'invalid request', { issues });
}

function toIssue(place: string, e: ErrorObject): ValidationIssue {
  const loc: (string | number)[] = [place];
  for (const part of e.instancePath.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    loc.push(/^\d+$/.test(key) ? Number(key) : key);
  }
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'required') loc.push(String(p.missingProperty));
  if (e.keyword === 'additionalProperties') loc.push(String(p.additionalProperty));
  return { loc, msg: message(e), type: issueType(e) };
}

function message(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return 'Field required';
    case 'additionalProperties':
      return 'Extra inputs are not permitted';
    case 'minLength':
      return p.limit === 1
        ? 'Input should be a non-empty string'
        : `String should have at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `String should have at most ${String(p.limit)} characters`;
    case 'type':
      return TYPE_MESSAGES[String(p.type).split(',')[0] ?? ''] ?? e.message ?? 'invalid value';
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return e.message ?? 'invalid value';
  }
}

const TYPE_MESSAGES: Record<string, string> = {
  integer: 'Input should be a valid integer',
  number: 'Input should be a valid number',
  string: 'Input should be a string',
  boolean: 'Input should be a valid boolean',
  array: 'Input should be a valid list',
  object: 'Input should be an object',
};

const TYPE_NAMES: Record<string, string> = {
  integer: 'int_type',
  number: 'float_type',
  string: 'string_type',
  boolean: 'bool_type',
  array: 'list_type',
  object: 'dict_type',
};

function issueType(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return 'missing';
    case 'type':
      return TYPE_NAMES[String(p.type).split(',')[0] ?? ''] ?? 'type_error';
    case 'enum':
    case 'const':
      return 'enum';
    case 'maxLength':
      return 'string_too_long';
    case 'minLength':
      return 'string_too_short';
    case 'pattern':
      return 'string_pattern_mismatch';
    case 'format':
      return p.format === 'date-time' ? 'datetime_parsing' : 'value_error';
    case 'minimum':
    case 'exclusiveMinimum':
      return 'greater_than_equal';
    case 'maximum':
    case 'exclusiveMaximum':
      return 'less_than_equal';
    case 'maxItems':
      return 'too_long';
    case 'minItems':
      return 'too_short';
    case 'additionalProperties':
      return 'extra_forbidden';
    default:
      return 'value_error';
  }
}

/**
 * A route's `preValidation` where the body may be left out: no body reads as `{}`. A JSON `null`
 * is a body, of the wrong type: 422 at `["body"]`.
 */
export async function bodyOptional(req: FastifyRequest): Promise<void> {
  if (req.body === undefined) req.body = {};
}
