import type { FastifyInstance } from 'fastify';
import { Type as T } from 'typebox';
import { toPreventionConfigJson } from '../model/prevention-config.ts';
import type { PreventionService, Scope } from '../prevention/config-service.ts';
import type { Principal } from '../auth/principal.ts';
import { queryString as str } from '../http/query-values.ts';
import { typed } from '../http/route-schema.ts';
import { PreventionBody, inCallerSpelling, preventionInput } from '../http/prevention-body.ts';

const ProjectQuery = T.Object({ project_id: T.Optional(T.String()) });
const AgentQuery = T.Object({
  project_id: T.Optional(T.String()),
  include_defaults: T.Optional(
    T.String({ description: 'true: the built-in defaults when nothing is stored, not a 404' }),
  ),
});
const AgentParams = T.Object({ name: T.String() });
const ProjectParams = T.Object({ project_id: T.String() });
/**
 * The flat or the nested shape (docs/prevention.md#the-two-shapes), typed by its schema; the values
 * are checked by PreventionService, against the stored config for a PATCH, each problem named as
 * the caller spelt it.
 */
const ConfigBody = PreventionBody;

/** The services these routes use, and nothing else. */
export interface PreventionRoutesDeps {
  prevention: PreventionService;
}

/**
 * Prevention config (docs/prevention.md). Reads need any role (the SDK's key reads its
 * agent's config at session start), writes the admin role (the default for non-GET routes; the
 * service decides). Agent routes and the short project spelling act on the caller's project (a
 * bound key's own, else `project_id` from the query, else `default`); the long spelling names it
 * in the path.
 */
export function registerPreventionRoutes(app: FastifyInstance, s: PreventionRoutesDeps): void {
  const p = s.prevention;
  const r = typed(app);
  const agentRoute = { params: AgentParams, querystring: ProjectQuery };
  const agent = (req: { params: { name: string }; query: { project_id?: string } }) => ({
    projectId: str(req.query.project_id),
    agentName: req.params.name,
  });
  const json = toPreventionConfigJson;
  /** PUT (replace) or PATCH (update) of `scope` with a body in either shape. */
  const write = async (
    method: 'replace' | 'update',
    by: Principal,
    scope: Scope,
    body: Record<string, unknown>,
  ) => {
    const { input, nested } = preventionInput(body);
    return json(await inCallerSpelling(nested, p[method](by, scope, input)));
  };

  // 404 when nothing is stored (clients keep their own config); include_defaults=true answers the built-in defaults then.
  r.get(
    '/api/agents/:name/prevention-config',
    { schema: { params: AgentParams, querystring: AgentQuery } },
    async (req) =>
      json(
        req.query.include_defaults === 'true'
          ? await p.effective(req.principal, agent(req))
          : await p.stored(req.principal, agent(req)),
      ),
  );
  r.put(
    '/api/agents/:name/prevention-config',
    { schema: { ...agentRoute, body: ConfigBody } },
    async (req) => write('replace', req.principal, agent(req), req.body),
  );
  r.patch(
    '/api/agents/:name/prevention-config',
    { schema: { ...agentRoute, body: ConfigBody } },
    async (req) => write('update', req.principal, agent(req), req.body),
  );
  r.delete('/api/agents/:name/prevention-config', { schema: agentRoute }, async (req, reply) => {
    await p.remove(req.principal, agent(req));
    return reply.status(204).send();
  });

  // The project default, under both spellings: named in the path (it must exist), or the caller's.
  const named = { params: ProjectParams };
  const namedScope = (req: { params: { project_id: string } }) => ({
    projectId: req.params.project_id,
    projectNamed: true,
  });
  const url = '/api/projects/:project_id/prevention-config';
  r.get(url, { schema: named }, async (req) =>
    json(await p.effective(req.principal, namedScope(req))),
  );
  r.put(url, { schema: { ...named, body: ConfigBody } }, async (req) =>
    write('replace', req.principal, namedScope(req), req.body),
  );
  r.patch(url, { schema: { ...named, body: ConfigBody } }, async (req) =>
    write('update', req.principal, namedScope(req), req.body),
  );
  r.delete(url, { schema: named }, async (req, reply) => {
    await p.remove(req.principal, namedScope(req));
    return reply.status(204).send();
  });

  const short = '/api/prevention-config';
  const callerScope = (req: { query: { project_id?: string } }) => ({
    projectId: str(req.query.project_id),
  });
  const callers = { querystring: ProjectQuery };
  r.get(short, { schema: callers }, async (req) =>
    json(await p.effective(req.principal, callerScope(req))),
  );
  r.put(short, { schema: { ...callers, body: ConfigBody } }, async (req) =>
    write('replace', req.principal, callerScope(req), req.body),
  );
  r.patch(short, { schema: { ...callers, body: ConfigBody } }, async (req) =>
    write('update', req.principal, callerScope(req), req.body),
  );
  r.delete(short, { schema: callers }, async (req, reply) => {
    await p.remove(req.principal, callerScope(req));
    return reply.status(204).send();
  });

  r.get('/api/prevention-configs', { schema: callers }, async (req) =>
    (await p.list(req.principal, str(req.query.project_id))).map(json),
  );
}
