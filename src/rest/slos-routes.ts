import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';

type Query = { project_id?: string; agent_name?: string };

/** SLOs (docs/slos.md#rest): definitions and their status now. Writes need the admin role (the default for non-GET). */
export function registerSloRoutes(app: FastifyInstance, s: Services): void {
  const project = (req: FastifyRequest, body?: unknown) => {
    // An SLO body may carry its project_id (docs/slos.md); the query parameter wins, and a body
    // naming another project than the query is refused by the validation.
    const named = (body as { project_id?: unknown } | null | undefined)?.project_id;
    return s.slos.project(
      req.principal,
      (req.query as Query).project_id ?? (typeof named === 'string' ? named : undefined),
    );
  };

  app.get('/api/slos', async (req) => s.slos.list(project(req)));

  app.post('/api/slos', async (req, reply) => {
    const slo = await s.slos.create(project(req, req.body), req.body);
    return reply.status(201).send(slo);
  });

  app.get('/api/slos/status', async (req) => {
    const { agent_name } = req.query as Query;
    return s.slos.evaluate(project(req), undefined, agent_name || undefined);
  });

  app.patch('/api/slos/:slo_id', async (req) =>
    s.slos.update(project(req), (req.params as { slo_id: string }).slo_id, req.body),
  );

  app.delete('/api/slos/:slo_id', async (req, reply) => {
    await s.slos.delete(project(req), (req.params as { slo_id: string }).slo_id);
    return reply.status(204).send();
  });
}
