import type { FastifyInstance } from 'fastify';
import { Type as T, type Static } from 'typebox';
import { toModelPriceJson, toCostBreakdownJson, type ModelPriceInput } from '../model/cost.ts';
import { MAX_MODEL_ID, MAX_PRICE, MAX_PROVIDER } from '../costs/pricing-input.ts';
import type { CostService } from '../costs/cost-service.ts';
import { queryTime, queryString as str } from '../http/query-values.ts';
import { typed } from '../http/route-schema.ts';

const ProjectQuery = T.Object({ project_id: T.Optional(T.String()) });
// Text here; CostService checks the window or the since/until range (docs/costs.md) for every adapter.
const BreakdownQuery = T.Object({
  project_id: T.Optional(T.String()),
  window: T.Optional(T.String({ description: '24h (default), 7d or 30d' })),
  since: T.Optional(
    T.String({ description: 'ISO 8601; with until instead of window, at most 30 days' }),
  ),
  until: T.Optional(T.String({ description: 'ISO 8601; with since' })),
});
const ModelsQuery = T.Object({
  project_id: T.Optional(T.String()),
  history: T.Optional(T.String({ description: 'true or 1: every dated record' })),
});
const ModelParams = T.Object({ model_id: T.String() });

/**
 * USD per 1M tokens. The service checks the same ranges for every adapter; here they let one 422
 * list every problem of a body at once.
 */
const Price = T.Number({ minimum: 0, maximum: MAX_PRICE });
const CachePrice = T.Unsafe<number | null>({
  type: ['number', 'null'],
  minimum: 0,
  maximum: MAX_PRICE,
});
/** Not blank, no control characters. */
const Text = (maxLength: number) =>
  T.String({ minLength: 1, maxLength, pattern: '^(?=.*\\S)[^\\u0000-\\u001f\\u007f]*$' });
const priceFields = {
  provider: T.Optional(Text(MAX_PROVIDER)),
  input_per_1m_usd: T.Optional(Price),
  output_per_1m_usd: T.Optional(Price),
  cache_read_per_1m_usd: T.Optional(CachePrice),
  cache_write_per_1m_usd: T.Optional(CachePrice),
  effective_from: T.Optional(T.Unsafe<string | null>({ type: ['string', 'null'] })),
};
const NewPrice = T.Object(
  {
    model_id: Text(MAX_MODEL_ID),
    ...priceFields,
    input_per_1m_usd: Price,
    output_per_1m_usd: Price,
  },
  { additionalProperties: false },
);
const PriceChange = T.Object(priceFields, { additionalProperties: false });

function priceInput(b: Static<typeof PriceChange>): ModelPriceInput {
  return {
    provider: b.provider,
    inputPer1mUsd: b.input_per_1m_usd,
    outputPer1mUsd: b.output_per_1m_usd,
    cacheReadPer1mUsd: b.cache_read_per_1m_usd,
    cacheWritePer1mUsd: b.cache_write_per_1m_usd,
    effectiveFrom: typeof b.effective_from === 'string' ? new Date(b.effective_from) : undefined,
  };
}

/** The services these routes use, and nothing else. */
export interface CostsRoutesDeps {
  costs: CostService;
}

/**
 * Costs and model pricing (docs/costs.md). Bodies are checked without type coercion: a price sent
 * as text or a model id sent as a number is a 422, as it always was.
 */
export function registerCostsRoutes(app: FastifyInstance, s: CostsRoutesDeps): void {
  const r = typed(app);
  const admin = { access: 'admin' as const };

  r.get('/api/costs/breakdown', { schema: { querystring: BreakdownQuery } }, async (req) =>
    toCostBreakdownJson(
      await s.costs.breakdown(req.principal, {
        projectId: str(req.query.project_id),
        window: req.query.window,
        since: queryTime(req.query.since),
        until: queryTime(req.query.until),
      }),
    ),
  );
  r.get('/api/costs/models', { schema: { querystring: ModelsQuery } }, async (req) =>
    s.costs
      .listModels(req.principal, {
        projectId: str(req.query.project_id),
        history: req.query.history === 'true' || req.query.history === '1',
      })
      .map(toModelPriceJson),
  );
  r.post(
    '/api/costs/models',
    {
      config: admin,
      schema: { querystring: ProjectQuery, body: NewPrice },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(
          toModelPriceJson(
            await s.costs.addModel(
              req.principal,
              req.body.model_id,
              priceInput(req.body),
              str(req.query.project_id),
            ),
          ),
        ),
  );
  r.patch(
    '/api/costs/models/:model_id',
    {
      config: admin,
      // No body is a change of nothing: a new record with the model's values, as before.
      preValidation: async (req) => {
        req.body ??= {};
      },
      schema: { params: ModelParams, querystring: ProjectQuery, body: PriceChange },
    },
    async (req) =>
      toModelPriceJson(
        await s.costs.updateModel(
          req.principal,
          req.params.model_id,
          priceInput(req.body),
          str(req.query.project_id),
        ),
      ),
  );
  r.delete(
    '/api/costs/models/:model_id',
    { config: admin, schema: { params: ModelParams, querystring: ProjectQuery } },
    async (req) => {
      const gone = await s.costs.deleteModel(
        req.principal,
        req.params.model_id,
        str(req.query.project_id),
      );
      return { model_id: gone.modelId, removed: gone.removed };
    },
  );
}
