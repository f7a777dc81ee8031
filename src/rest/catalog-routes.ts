import type { FastifyInstance } from 'fastify';
import type { CatalogKind } from '../catalog/catalog-service.ts';
import type { Services } from '../services.ts';

/**
 * Agent and server catalogs (docs/api.md#rest). The spec names PUT /api/servers/metadata/{name}; the
 * reads and the delete it leaves open follow the agents' paths.
 */
export function registerCatalogRoutes(app: FastifyInstance, s: Services): void {
  for (const [kind, base, param] of [
    ['agent', '/api/agents/metadata', 'agent_name'],
    ['server', '/api/servers/metadata', 'name'],
  ] as const) {
    const project = (q: unknown) => (q as { project_id?: string }).project_id;
    const name = (p: unknown) => (p as Record<string, string>)[param] as string;
    app.get(base, async (req) =>
      s.catalog.list(kind, s.catalog.project(req.principal, project(req.query))),
    );
    app.get(`${base}/:${param}`, async (req) =>
      s.catalog.get(kind, s.catalog.project(req.principal, project(req.query)), name(req.params)),
    );
    app.put(`${base}/:${param}`, async (req) =>
      s.catalog.put(
        kind,
        s.catalog.project(req.principal, project(req.query)),
        name(req.params),
        req.body,
      ),
    );
    app.delete(`${base}/:${param}`, async (req, reply) => {
      await s.catalog.delete(
        kind,
        s.catalog.project(req.principal, project(req.query)),
        name(req.params),
      );
      return reply.status(204).send();
    });
  }
  const discover = (kind: CatalogKind, key: 'agents' | 'servers') =>
    app.post(`/api/${key}/discover`, { config: { access: 'admin' } }, async (req) => {
      const names = await s.catalog.discover(
        kind,
        s.catalog.project(req.principal, (req.query as { project_id?: string }).project_id),
      );
      return { discovered: names.length, [key]: names };
    });
  discover('agent', 'agents');
  discover('server', 'servers');
}
