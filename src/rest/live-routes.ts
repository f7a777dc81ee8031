import type { FastifyInstance } from 'fastify';
import { Type as T } from 'typebox';
import { scopeProject } from '../auth/principal.ts';
import type { Config } from '../config/types.ts';
import type { SseHub } from '../live/sse-hub.ts';
import { checkBrowserOrigin } from '../auth/browser-origin.ts';
import { queryString as str } from '../http/query-values.ts';
import { typed } from '../http/route-schema.ts';

const LiveQuery = T.Object({ project_id: T.Optional(T.String()) });

/** The services these routes use, and nothing else. */
export interface LiveRoutesDeps {
  config: Pick<Config, 'http'>;
  live: SseHub;
}

/**
 * GET /api/live/events: the SSE stream, authenticated and project-scoped like every route, and
 * refused to cross-origin pages (docs/auth.md#browsers-origin-and-host). It takes a place in the shared live budget.
 * `Last-Event-ID` resumes after that event; one that is not a whole number starts afresh.
 */
export function registerLiveRoutes(app: FastifyInstance, s: LiveRoutesDeps): void {
  typed(app).get(
    '/api/live/events',
    {
      onRequest: checkBrowserOrigin(s.config.http.allowedOrigins),
      schema: { querystring: LiveQuery },
    },
    async (req, reply) => {
      const projectId = scopeProject(req.principal, str(req.query.project_id));
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
