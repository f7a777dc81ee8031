import type { FastifyInstance } from 'fastify';
import { scopeProject } from '../auth/principal.ts';
import type { Services } from '../services.ts';
import { getLineage } from '../sessions/lineage-service.ts';
import {
  getSessionTree,
  listSessions,
  toTreeJson,
  type SessionQuery,
} from '../sessions/sessions-service.ts';

/** Sessions, span trees and the lineage graph (docs/api.md#rest). */
export function registerSessionRoutes(app: FastifyInstance, s: Services): void {
  app.get('/api/agents/sessions', async (req, reply) => {
    const q = req.query as Omit<SessionQuery, 'projectId'> & { project_id?: string };
    const page = await listSessions(s.store.db, {
      ...q,
      projectId: scopeProject(req.principal, q.project_id),
    });
    if (page.nextCursor) void reply.header('X-Next-Cursor', page.nextCursor);
    return page.sessions;
  });

  app.get('/api/agents/sessions/:session_id', async (req) => {
    const { session_id } = req.params as { session_id: string };
    const q = req.query as { project_id?: string };
    const detail = await getSessionTree(
      s.store.db,
      scopeProject(req.principal, q.project_id),
      session_id,
    );
    return { ...detail, spans: toTreeJson(detail.spans) };
  });

  app.get('/api/agents/lineage', async (req) => {
    const q = req.query as { project_id?: string; since?: string; until?: string; hours?: string };
    return getLineage(s.store.db, {
      projectId: scopeProject(req.principal, q.project_id),
      since: q.since,
      until: q.until,
      hours: q.hours,
    });
  });
}
