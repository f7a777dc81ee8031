import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Scope } from '../prevention/config-service.ts';
import type { Services } from '../services.ts';

type Query = { project_id?: string; include_defaults?: string };

/**
 * Prevention config (docs/prevention.md). Reads need any role (the SDK's key reads its
 * agent's config at session start), writes the admin role (the default for non-GET routes).
 * Agent routes and the short project spelling act on the caller's project (a bound key's own,
 * else `project_id` from the query, else `default`); the long spelling names it in the path.
 */
export function registerPreventionRoutes(app: FastifyInstance, s: Services): void {
  const p = s.prevention;
  const callerProject = (req: FastifyRequest) =>
    p.project(req.principal, (req.query as Query).project_id);
  const agentName = (req: FastifyRequest) => (req.params as { name: string }).name;
  const agent = (req: FastifyRequest): Scope => ({
    projectId: callerProject(req),
    agentName: agentName(req),
  });

  // 404 when nothing is stored (clients keep their own config); include_defaults=true answers the built-in defaults then.
  app.get('/api/agents/:name/prevention-config', async (req) => {
    const withDefaults = (req.query as Query).include_defaults === 'true';
    return withDefaults
      ? p.effective(callerProject(req), agentName(req))
      : p.stored(callerProject(req), agentName(req));
  });
  app.put('/api/agents/:name/prevention-config', async (req) =>
    p.replace(req.principal, agent(req), req.body),
  );
  app.patch('/api/agents/:name/prevention-config', async (req) =>
    p.update(req.principal, agent(req), req.body),
  );
  app.delete('/api/agents/:name/prevention-config', async (req, reply) => {
    await p.remove(req.principal, agent(req));
    return reply.status(204).send();
  });

  // The project default, under both spellings.
  const routes = (url: string, scopeOf: (req: FastifyRequest) => Promise<Scope>) => {
    app.get(url, async (req) => p.projectDefault((await scopeOf(req)).projectId));
    app.put(url, async (req) => p.replace(req.principal, await scopeOf(req), req.body));
    app.patch(url, async (req) => p.update(req.principal, await scopeOf(req), req.body));
    app.delete(url, async (req, reply) => {
      await p.remove(req.principal, await scopeOf(req));
      return reply.status(204).send();
    });
  };
  routes('/api/projects/:project_id/prevention-config', async (req) => ({
    projectId: await p.namedProject(
      req.principal,
      (req.params as { project_id: string }).project_id,
    ),
  }));
  routes('/api/prevention-config', async (req) => ({ projectId: callerProject(req) }));

  app.get('/api/prevention-configs', async (req) => p.list(callerProject(req)));
}
