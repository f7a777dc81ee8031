import type { FastifyInstance } from 'fastify';
import { scopeProject } from '../auth/principal.ts';
import type { Services } from '../services.ts';

/** GET /api/live/events: the SSE stream, authenticated and project-scoped like every route. */
export function registerLiveRoutes(app: FastifyInstance, s: Services): void {
  app.get('/api/live/events', async (req, reply) => {
    const q = req.query as { project_id?: string };
    const projectId = scopeProject(req.principal, q.project_id);
    const raw = req.headers['last-event-id'];
    const lastId = raw === undefined ? null : Number(Array.isArray(raw) ? raw[0] : raw);
    reply.hijack();
    s.live.attach(reply.raw, projectId, lastId !== null && Number.isInteger(lastId) ? lastId : null);
  });
}
