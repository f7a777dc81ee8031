import type { FastifyInstance } from 'fastify';
import { Type as T } from 'typebox';
import { MAX_OFFSET, MAX_PAGE } from '../audit/audit-log.ts';
import { toAuditEventJson } from '../model/audit-event.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import { typed } from '../http/route-schema.ts';

const Query = T.Object({
  limit: T.Integer({ minimum: 1, maximum: MAX_PAGE, default: 50 }),
  offset: T.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0 }),
  action: T.Optional(T.String({ minLength: 1 })),
  actor: T.Optional(T.String({ minLength: 1 })),
  result: T.Optional(T.Enum(['success', 'failure'])),
});

/** The services these routes use, and nothing else. */
export interface AuditRoutesDeps {
  audit: AuditLog;
}

/**
 * GET /api/audit/logs (docs/auth.md#audit-log): limit default 50, max 200; offset default 0;
 * action, actor and result filter. AuditLog decides who reads which entries.
 */
export function registerAuditRoutes(app: FastifyInstance, s: AuditRoutesDeps): void {
  typed(app).get(
    '/api/audit/logs',
    { config: { access: 'admin' }, schema: { querystring: Query } },
    async (req) => {
      const { limit, offset, ...filter } = req.query;
      return (await s.audit.list(req.principal, { limit, offset }, filter)).map(toAuditEventJson);
    },
  );
}
