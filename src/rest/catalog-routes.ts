import type { FastifyInstance } from 'fastify';
import { Type as T, type Static } from 'typebox';
import {
  AGENT_STATUSES,
  CATALOG_TRANSPORTS,
  toCatalogJson,
  type CatalogInput,
  type CatalogKind,
} from '../model/catalog.ts';
import type { CatalogService } from '../catalog/catalog-service.ts';
import { typed } from '../http/route-schema.ts';
import { NullableString, OPTIONAL_BODY } from '../http/strict-body.ts';

const Query = T.Object({ project_id: T.Optional(T.String()) });
const common = {
  description: T.Optional(NullableString()),
  owner: T.Optional(NullableString()),
  runbook_url: T.Optional(NullableString()),
  tags: T.Optional(T.Array(T.String())),
};
// The fields' types; CatalogService checks the values (sizes, url policy, transport rules).
const AgentBody = T.Object({
  ...common,
  status: T.Optional(T.Unsafe<string>({ enum: [...AGENT_STATUSES] })),
});
const ServerBody = T.Object({
  ...common,
  transport: T.Optional(T.Unsafe<string | null>({ enum: [...CATALOG_TRANSPORTS, null] })),
  url: T.Optional(NullableString()),
});
const BODY: Record<CatalogKind, typeof AgentBody | typeof ServerBody> = {
  agent: AgentBody,
  server: ServerBody,
};

/** The body in domain terms. */
function catalogInput(b: Static<typeof AgentBody> & Static<typeof ServerBody>): CatalogInput {
  return {
    description: b.description,
    owner: b.owner,
    tags: b.tags,
    runbookUrl: b.runbook_url,
    status: b.status,
    transport: b.transport,
    url: b.url,
  };
}

/** The services these routes use, and nothing else. */
export interface CatalogRoutesDeps {
  catalog: CatalogService;
}

/**
 * Agent and server catalogs (docs/api.md#rest). The spec names PUT /api/servers/metadata/{name}; the
 * reads and the delete it leaves open follow the agents' paths.
 */
export function registerCatalogRoutes(app: FastifyInstance, s: CatalogRoutesDeps): void {
  const r = typed(app);
  for (const [kind, base, param] of [
    ['agent', '/api/agents/metadata', 'agent_name'],
    ['server', '/api/servers/metadata', 'name'],
  ] as const) {
    const Params = T.Object({ [param]: T.String() });
    const name = (p: Record<string, string>) => p[param] as string;
    r.get(base, { schema: { querystring: Query } }, async (req) =>
      (await s.catalog.list(req.principal, kind, req.query.project_id)).map(toCatalogJson),
    );
    r.get(`${base}/:${param}`, { schema: { params: Params, querystring: Query } }, async (req) =>
      toCatalogJson(
        await s.catalog.get(req.principal, kind, name(req.params), req.query.project_id),
      ),
    );
    r.put(
      `${base}/:${param}`,
      { ...OPTIONAL_BODY, schema: { params: Params, querystring: Query, body: BODY[kind] } },
      async (req) =>
        toCatalogJson(
          await s.catalog.put(
            req.principal,
            kind,
            name(req.params),
            catalogInput(req.body),
            req.query.project_id,
          ),
        ),
    );
    r.delete(
      `${base}/:${param}`,
      { schema: { params: Params, querystring: Query } },
      async (req, reply) => {
        await s.catalog.delete(req.principal, kind, name(req.params), req.query.project_id);
        return reply.status(204).send();
      },
    );
  }
  for (const [kind, key] of [
    ['agent', 'agents'],
    ['server', 'servers'],
  ] as const)
    r.post(
      `/api/${key}/discover`,
      { config: { access: 'admin' }, schema: { querystring: Query } },
      async (req) => {
        const names = await s.catalog.discover(req.principal, kind, req.query.project_id);
        return { discovered: names.length, [key]: names };
      },
    );
}
