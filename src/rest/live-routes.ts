import type { FastifyInstance } from 'fastify';
import { scopeProject } from '../auth/principal.ts';
import type { Services } from '../services.ts';
import { checkBrowserOrigin } from '../auth/browser-origin.ts';

/**
 * GET /api/live/events: the SSE stream, authenticated and project-scoped like every route, and
 * refused to cross-origin pages (docs/auth.md#browsers-origin-and-host). It takes a place in the shared live budget.
 */
export function registerLiveRoutes(app: FastifyInstance, s: Services): void {
  app.get(
    '/api/live/events',
    { onRequest: checkBrowserOrigin(s.config.http.allowedOrigins) },
    async (req, reply) => {
      const q = req.query as { project_id?: string };
      const projectId = scopeProject(req.principal, q.project_id);
      const raw = req.headers['last-event-id'];
      const lastId = raw === undefined ? null : Number(Array.isArray(raw) ? raw[0] : raw);
      reply.hijack();
      await s.live.attach(
        reply.raw,
        req.principal,
        projectId,
        lastId !== null && Number.isInteger(lastId) ? lastId : null,
      );
    },
  );
}
