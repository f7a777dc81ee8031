import type { FastifyInstance } from 'fastify';
import { scopeProject } from '../auth/principal.ts';
import { toSpanJson } from '../model/span.ts';
import type { Services } from '../services.ts';
import { querySpans, type SpanQuery } from '../traces/spans-service.ts';

export function registerTracesRoutes(app: FastifyInstance, s: Services): void {
  app.get('/api/traces/spans', async (req, reply) => {
    const q = req.query as Omit<SpanQuery, 'projectId'> & { project_id?: string };
    const page = await querySpans(s.store.db, {
      ...q,
      projectId: scopeProject(req.principal, q.project_id),
    });
    if (page.nextCursor) void reply.header('X-Next-Cursor', page.nextCursor);
    return page.spans.map(toSpanJson);
  });
}
