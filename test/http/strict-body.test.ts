import Fastify from 'fastify';
import { Type as T } from 'typebox';
import { describe, expect, it } from 'vitest';
import { handleError } from '../../src/http/errors.ts';
import { schemaErrorFormatter, typed, validatorCompiler } from '../../src/http/route-schema.ts';
import { NullableString, OPTIONAL_BODY } from '../../src/http/strict-body.ts';

async function app() {
  const a = Fastify({ schemaErrorFormatter });
  a.setErrorHandler(handleError);
  a.setValidatorCompiler(validatorCompiler);
  typed(a).post(
    '/things/:n',
    {
      ...OPTIONAL_BODY,
      schema: {
        params: T.Object({ n: T.Integer() }),
        querystring: T.Object({ limit: T.Optional(T.Integer({ default: 3 })) }),
        body: T.Object({ name: T.Optional(NullableString()) }),
      },
    },
    async (req) => ({ n: req.params.n, limit: req.query.limit, name: req.body.name ?? null }),
  );
  return a;
}

describe('OPTIONAL_BODY', () => {
  it('coerces the query and path but takes the body as sent', async () => {
    const a = await app();
    const ok = await a.inject({ method: 'POST', url: '/things/4?limit=2', payload: { name: 'x' } });
    expect(ok.json()).toEqual({ n: 4, limit: 2, name: 'x' });
    const none = await a.inject({ method: 'POST', url: '/things/4' });
    expect(none.json()).toEqual({ n: 4, limit: 3, name: null });
    const bad = await a.inject({ method: 'POST', url: '/things/4', payload: { name: 7 } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail).toEqual([
      expect.objectContaining({ loc: ['body', 'name'], type: 'string_type' }),
    ]);
  });
});
