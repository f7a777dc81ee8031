import type { FastifyInstance } from 'fastify';
import { SpyglassError, type ValidationIssue } from '../errors.ts';
import { toAuditEventJson } from '../model/audit-event.ts';
import type { Services } from '../services.ts';
import { parseIntParam, parseLimit } from '../traces/query-params.ts';

/** Far beyond any audit log, and inside what PostgreSQL's OFFSET takes. */
const MAX_OFFSET = 1_000_000_000;

/** GET /api/audit/logs (docs/auth.md#audit-log): limit default 50, max 200; offset default 0. */
export function registerAuditRoutes(app: FastifyInstance, s: Services): void {
  app.get('/api/audit/logs', { config: { access: 'admin' } }, async (req) => {
    const q = req.query as { limit?: string; offset?: string };
    const issues: ValidationIssue[] = [];
    const limit = parseLimit(q.limit, 50, 200, issues);
    const offset = parseIntParam('offset', q.offset, 0, 0, MAX_OFFSET, issues);
    if (issues.length > 0) throw new SpyglassError('validation', 'invalid query', { issues });
    return (await s.audit.list(req.principal, { limit, offset })).map(toAuditEventJson);
  });
}
