import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';

export function registerProjectRoutes(app: FastifyInstance, s: Services): void {
  app.get('/api/projects', async (req) => s.projects.list(req.principal));
  app.post('/api/projects', { config: { access: 'admin' } }, async (req, reply) =>
    reply
      .status(201)
      .send(await s.projects.create(req.principal, (req.body ?? {}) as Record<string, unknown>)),
  );
  app.get('/api/projects/:project_id', async (req) =>
    s.projects.get(req.principal, (req.params as { project_id: string }).project_id),
  );
  app.patch('/api/projects/:project_id', { config: { access: 'admin' } }, async (req) =>
    s.projects.update(
      req.principal,
      (req.params as { project_id: string }).project_id,
      (req.body ?? {}) as Record<string, unknown>,
    ),
  );
  app.delete('/api/projects/:project_id', { config: { access: 'admin' } }, async (req, reply) => {
    await s.projects.delete(req.principal, (req.params as { project_id: string }).project_id);
    return reply.status(204).send();
  });
}
