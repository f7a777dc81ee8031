import type { FastifyInstance, FastifyRequest } from 'fastify';
import { toAlertJson } from '../alerts/alert-json.ts';
import type { InboxQuery, Transition } from '../alerts/inbox.ts';
import { scopeProject } from '../auth/principal.ts';
import { SpyglassError } from '../errors.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import type { Services } from '../services.ts';

type IdParams = { id: string };

/** The caller's project: a bound key's own, else `project_id` from the query, else `default`. */
function projectOf(req: FastifyRequest): string {
  const q = req.query as { project_id?: string };
  return scopeProject(req.principal, q.project_id) ?? DEFAULT_PROJECT;
}

function objectBody(req: FastifyRequest): Record<string, unknown> {
  const body = req.body ?? {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new SpyglassError('validation', 'invalid body', {
      issues: [{ loc: ['body'], msg: 'Input should be an object', type: 'dict_type' }],
    });
  }
  return body as Record<string, unknown>;
}

/**
 * docs/api.md#alerts alert routes, thin over AlertService: reads for every role, writes (ack, resolve,
 * snooze, config, test) for admins, everything scoped to the caller's project.
 */
export function registerAlertRoutes(app: FastifyInstance, s: Services): void {
  app.get('/api/alerts/inbox', async (req, reply) => {
    const page = await s.alerts.inbox(projectOf(req), req.query as InboxQuery);
    if (page.nextCursor) void reply.header('X-Next-Cursor', page.nextCursor);
    return page.alerts.map(toAlertJson);
  });

  app.get('/api/alerts/counts', async (req) => s.alerts.counts(projectOf(req)));

  const move =
    (action: Transition['action']) => async (req: FastifyRequest<{ Params: IdParams }>) => {
      const t: Transition =
        action === 'snooze' ? { action, minutes: objectBody(req).minutes } : { action };
      return toAlertJson(await s.alerts.move(projectOf(req), req.params.id, t));
    };
  app.post<{ Params: IdParams }>('/api/alerts/:id/ack', move('ack'));
  app.post<{ Params: IdParams }>('/api/alerts/:id/resolve', move('resolve'));
  app.post<{ Params: IdParams }>('/api/alerts/:id/snooze', move('snooze'));

  app.get('/api/alerts/config', async (req) => s.alerts.getConfig(projectOf(req)));
  app.post('/api/alerts/config', async (req) =>
    s.alerts.saveConfig(req.principal, projectOf(req), req.body ?? {}),
  );
  app.post('/api/alerts/test', async (req) => s.alerts.test(projectOf(req)));
}
