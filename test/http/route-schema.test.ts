import Fastify from 'fastify';
import { Type as T } from 'typebox';
import { describe, expect, it } from 'vitest';
import { handleError } from '../../src/http/errors.ts';
import { schemaErrorFormatter, typed, validatorCompiler } from '../../src/http/route-schema.ts';

async function app() {
  const a = Fastify({ schemaErrorFormatter });
  a.setErrorHandler(handleError);
  a.setValidatorCompiler(validatorCompiler);
  typed(a).post(
    '/things/:id',
    {
      schema: {
        params: T.Object({ id: T.String({ maxLength: 3 }) }),
        querystring: T.Object({
          limit: T.Optional(T.Integer({ minimum: 1, maximum: 10 })),
          since: T.Optional(T.String({ format: 'date-time' })),
        }),
        body: T.Object(
          { name: T.String(), kind: T.Union([T.Literal('a'), T.Literal('b')]) },
          { additionalProperties: false },
        ),
      },
    },
    async (req) => ({ id: req.params.id, limit: req.query.limit ?? null, name: req.body.name }),
  );
  return a;
}

describe('route schemas', () => {
  it('coerces a valid query and passes typed values to the handler', async () => {
    const a = await app();
    const res = await a.inject({
      method: 'POST',
      url: '/things/abc?limit=5',
      payload: { name: 'n', kind: 'a' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: 'abc', limit: 5, name: 'n' });
  });

  it('answers 422 with every body problem at once, each with loc, msg and type', async () => {
    const a = await app();
    const res = await a.inject({
      method: 'POST',
      url: '/things/abc',
      payload: { kind: 'c', extra: 1 },
    });
    expect(res.statusCode).toBe(422);
    const detail = res.json().detail as { loc: unknown[]; type: string; msg: string }[];
    expect(detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['body', 'name'], type: 'missing' }),
        expect.objectContaining({ loc: ['body', 'extra'], type: 'extra_forbidden' }),
      ]),
    );
    expect(detail.every((d) => typeof d.msg === 'string' && d.msg.length > 0)).toBe(true);
  });

  it('names the query field and the path parameter', async () => {
    const a = await app();
    const q = await a.inject({
      method: 'POST',
      url: '/things/abc?limit=zero&since=yesterday',
      payload: { name: 'n', kind: 'a' },
    });
    expect(q.statusCode).toBe(422);
    expect(q.json().detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['query', 'limit'], type: 'int_type' }),
        expect.objectContaining({ loc: ['query', 'since'], type: 'datetime_parsing' }),
      ]),
    );
    const p = await a.inject({
      method: 'POST',
      url: '/things/abcdef',
      payload: { name: 'n', kind: 'a' },
    });
    expect(p.json().detail[0]).toMatchObject({ loc: ['path', 'id'], type: 'string_too_long' });
  });
});
