import type { FastifyInstance } from 'fastify';
import { Type as T } from 'typebox';
import { describeRange } from '../model/int-range.ts';
import { toScanJson } from '../model/security-scan.ts';
import type { ScanService } from '../security/scan-service.ts';
import { bodyOptional, typed } from '../http/route-schema.ts';
import { SCAN_HISTORY_LIMIT, SCAN_HISTORY_OFFSET } from '../security/scan-service.ts';

const OptionalText = T.Optional(T.Unsafe<string | null>({ type: ['string', 'null'] }));
/** What a scan acts on: in the JSON body or as query parameters (the body wins). */
const Target = T.Object({ server_name: OptionalText, project_id: OptionalText });
const Name = T.Object({ name: T.String() });
const Project = T.Object({ project_id: T.Optional(T.String()) });

/** The services these routes use, and nothing else. */
export interface SecurityRoutesDeps {
  security: ScanService;
}

/**
 * docs/api.md#rest security routes; ScanService scopes each to the caller's project and decides who
 * may scan (a scan spawns processes and makes outbound requests: the write role, and the same
 * per-route default rate limit as POST /api/health/check).
 */
export function registerSecurityRoutes(app: FastifyInstance, s: SecurityRoutesDeps): void {
  const r = typed(app);
  r.post(
    '/api/security/scan',
    {
      config: { access: 'write' },
      preValidation: bodyOptional,
      schema: { body: Target, querystring: Target },
    },
    async (req) => {
      const scans = await s.security.scan(req.principal, {
        projectId: req.body.project_id ?? req.query.project_id,
        serverName: (req.body.server_name ?? req.query.server_name) || undefined,
      });
      return scans.map(toScanJson);
    },
  );

  r.get(
    '/api/security/servers/:name',
    { schema: { params: Name, querystring: Project } },
    async (req) =>
      toScanJson(await s.security.latest(req.principal, req.params.name, req.query.project_id)),
  );

  r.get(
    '/api/security/servers/:name/history',
    {
      schema: {
        params: Name,
        querystring: T.Object({
          ...Project.properties,
          // ScanService checks the ranges for every adapter.
          limit: T.Optional(T.Integer({ description: describeRange(SCAN_HISTORY_LIMIT) })),
          offset: T.Optional(T.Integer({ description: describeRange(SCAN_HISTORY_OFFSET) })),
        }),
      },
    },
    async (req) =>
      (
        await s.security.history(req.principal, req.params.name, {
          projectId: req.query.project_id,
          limit: req.query.limit,
          offset: req.query.offset,
        })
      ).map(toScanJson),
  );
}
