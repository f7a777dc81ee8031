import type { FastifyInstance } from 'fastify';
import { Type as T } from 'typebox';
import { toProjectJson } from '../model/project.ts';
import type { ProjectsService } from '../projects/projects-service.ts';
import { bodyOptional, typed } from '../http/route-schema.ts';

const Params = T.Object({ project_id: T.String() });
/** Settings are any JSON object: ProjectsService checks their shape, depth and size for every adapter. */
const Fields = { name: T.String(), settings: T.Optional(T.Unknown()) };

/** The services these routes use, and nothing else. */
export interface ProjectRoutesDeps {
  projects: ProjectsService;
}

/** Projects (docs/auth.md#projects); ProjectsService decides who may change what. */
export function registerProjectRoutes(app: FastifyInstance, s: ProjectRoutesDeps): void {
  const r = typed(app);
  const admin = { access: 'admin' as const };
  r.get('/api/projects', async (req) => (await s.projects.list(req.principal)).map(toProjectJson));
  r.post(
    '/api/projects',
    {
      config: admin,
      preValidation: bodyOptional,
      schema: { body: T.Object({ id: T.Optional(T.String()), ...Fields }) },
    },
    async (req, reply) =>
      reply.status(201).send(toProjectJson(await s.projects.create(req.principal, req.body))),
  );
  r.get('/api/projects/:project_id', { schema: { params: Params } }, async (req) =>
    toProjectJson(await s.projects.get(req.principal, req.params.project_id)),
  );
  r.patch(
    '/api/projects/:project_id',
    {
      config: admin,
      preValidation: bodyOptional,
      schema: { params: Params, body: T.Partial(T.Object(Fields)) },
    },
    async (req) =>
      toProjectJson(await s.projects.update(req.principal, req.params.project_id, req.body)),
  );
  r.delete(
    '/api/projects/:project_id',
    { config: admin, schema: { params: Params } },
    async (req, reply) => {
      await s.projects.delete(req.principal, req.params.project_id);
      return reply.status(204).send();
    },
  );
}
