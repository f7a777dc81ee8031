import type { FastifyInstance } from 'fastify';
import { parseWindow } from '../costs/cost-service.ts';
import type { Services } from '../services.ts';

type Query = { project_id?: string; window?: string; history?: string };

/** Costs and model pricing (docs/costs.md): thin adapters over CostService. */
export function registerCostsRoutes(app: FastifyInstance, s: Services): void {
  const project = (req: {
    principal: Parameters<Services['costs']['project']>[0];
    query: unknown;
  }) => s.costs.project(req.principal, (req.query as Query).project_id);
  const modelId = (params: unknown) => (params as { model_id: string }).model_id;

  app.get('/api/costs/breakdown', async (req) =>
    s.costs.breakdown(project(req), parseWindow((req.query as Query).window)),
  );
  app.get('/api/costs/models', async (req) => {
    const history = (req.query as Query).history;
    return s.costs.listModels(project(req), { history: history === 'true' || history === '1' });
  });
  app.post('/api/costs/models', { config: { access: 'admin' } }, async (req, reply) =>
    reply.status(201).send(await s.costs.addModel(req.principal, project(req), req.body)),
  );
  app.patch('/api/costs/models/:model_id', { config: { access: 'admin' } }, async (req) =>
    s.costs.updateModel(req.principal, project(req), modelId(req.params), req.body ?? {}),
  );
  app.delete('/api/costs/models/:model_id', { config: { access: 'admin' } }, async (req) =>
    s.costs.deleteModel(req.principal, project(req), modelId(req.params)),
  );
}
