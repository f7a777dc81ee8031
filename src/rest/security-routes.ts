import type { FastifyInstance } from 'fastify';
import { scopeProject } from '../auth/principal.ts';
import { SpyglassError, type ValidationIssue } from '../errors.ts';
import { toScanJson } from '../model/security-scan.ts';
import { serverRequest } from './server-request.ts';
import type { Services } from '../services.ts';
import { parseIntParam } from '../traces/query-params.ts';

type NameParams = { name: string };
type Query = Record<string, string | undefined>;

/**
 * docs/api.md#rest security routes, scoped to the caller's project like the health routes. A scan spawns
 * processes and makes outbound requests, so it needs the write role (as POST /api/health/check)
 * and counts against the same per-route default rate limit.
 */
export function registerSecurityRoutes(app: FastifyInstance, s: Services): void {
  app.post('/api/security/scan', { config: { access: 'write' } }, async (req) => {
    const { projectId, serverName } = serverRequest(req);
    return (await s.security.scan(projectId, serverName)).map(toScanJson);
  });

  app.get<{ Params: NameParams }>('/api/security/servers/:name', async (req) => {
    const q = req.query as Query;
    return toScanJson(
      await s.security.latest(scopeProject(req.principal, q.project_id), req.params.name),
    );
  });

  app.get<{ Params: NameParams }>('/api/security/servers/:name/history', async (req) => {
    const q = req.query as Query;
    const issues: ValidationIssue[] = [];
    const limit = parseIntParam('limit', q.limit, 10, 1, 100, issues);
    const offset = parseIntParam('offset', q.offset, 0, 0, 10_000, issues);
    if (issues.length > 0) throw new SpyglassError('validation', 'invalid query', { issues });
    return (
      await s.security.history(
        scopeProject(req.principal, q.project_id),
        req.params.name,
        limit,
        offset,
      )
    ).map(toScanJson);
  });
}
