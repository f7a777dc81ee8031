import type { FastifyInstance } from 'fastify';
import { Type as T, type Static } from 'typebox';
import { toAlertConfigJson, toAlertCountsJson, toAlertJson } from '../model/alert-json.ts';
import {
  ALERT_STATUSES,
  ALERT_TYPES,
  SEVERITIES,
  SNOOZE_DESCRIPTION,
  type AlertConfigPatch,
} from '../model/alert.ts';
import type { AlertService } from '../alerts/alert-service.ts';
import { typed } from '../http/route-schema.ts';
import { NullableString, OPTIONAL_BODY } from '../http/strict-body.ts';
import { INBOX_LIMIT } from '../alerts/inbox.ts';
import { describeRange } from '../model/int-range.ts';

const oneOf = (values: readonly string[]) => T.Optional(T.Unsafe<string>({ enum: [...values] }));
const Query = T.Object({ project_id: T.Optional(T.String()) });
const IdParams = T.Object({ id: T.String() });
const InboxQuery = T.Object({
  project_id: T.Optional(T.String()),
  status: oneOf([...ALERT_STATUSES, 'active', 'all']),
  type: oneOf(ALERT_TYPES),
  severity: oneOf(SEVERITIES),
  // AlertService checks the range for every adapter.
  limit: T.Optional(T.Integer({ description: describeRange(INBOX_LIMIT) })),
  cursor: T.Optional(T.String()),
});
const ConfigBody = T.Object(
  {
    alert_types: T.Optional(T.Record(T.String(), T.Boolean())),
    chat_webhook: T.Optional(NullableString()),
    // The config view's own keys may be posted back (a GET's answer, edited) and are ignored.
    chat_webhook_configured: T.Optional(T.Unknown()),
    chat_webhook_source: T.Optional(T.Unknown()),
    chat_webhook_masked: T.Optional(T.Unknown()),
  },
  { additionalProperties: false },
);

/** The body in domain terms; AlertService checks the alert types and the webhook for every adapter. */
function configPatch(b: Static<typeof ConfigBody>): AlertConfigPatch {
  return { alertTypes: b.alert_types, chatWebhook: b.chat_webhook };
}

/** The services these routes use, and nothing else. */
export interface AlertRoutesDeps {
  alerts: AlertService;
}

/**
 * docs/api.md#alerts alert routes, thin over AlertService: reads for every role, writes (ack, resolve,
 * snooze, config, test) for admins, everything scoped to the caller's project.
 */
export function registerAlertRoutes(app: FastifyInstance, s: AlertRoutesDeps): void {
  const r = typed(app);

  r.get('/api/alerts/inbox', { schema: { querystring: InboxQuery } }, async (req, reply) => {
    const { project_id, ...q } = req.query;
    const page = await s.alerts.inbox(req.principal, { ...q, projectId: project_id });
    if (page.nextCursor) void reply.header('X-Next-Cursor', page.nextCursor);
    return page.alerts.map(toAlertJson);
  });

  r.get('/api/alerts/counts', { schema: { querystring: Query } }, async (req) =>
    toAlertCountsJson(await s.alerts.counts(req.principal, req.query.project_id)),
  );

  for (const action of ['ack', 'resolve'] as const)
    r.post(
      `/api/alerts/:id/${action}`,
      { schema: { params: IdParams, querystring: Query } },
      async (req) =>
        toAlertJson(
          await s.alerts.move(req.principal, req.params.id, { action }, req.query.project_id),
        ),
    );
  r.post(
    '/api/alerts/:id/snooze',
    {
      ...OPTIONAL_BODY,
      schema: {
        params: IdParams,
        querystring: Query,
        body: T.Object({ minutes: T.Integer({ description: SNOOZE_DESCRIPTION }) }),
      },
    },
    async (req) =>
      toAlertJson(
        await s.alerts.move(
          req.principal,
          req.params.id,
          { action: 'snooze', minutes: req.body.minutes },
          req.query.project_id,
        ),
      ),
  );

  r.get('/api/alerts/config', { schema: { querystring: Query } }, async (req) =>
    toAlertConfigJson(await s.alerts.getConfig(req.principal, req.query.project_id)),
  );
  r.post(
    '/api/alerts/config',
    { ...OPTIONAL_BODY, schema: { querystring: Query, body: ConfigBody } },
    async (req) =>
      toAlertConfigJson(
        await s.alerts.saveConfig(req.principal, configPatch(req.body), req.query.project_id),
      ),
  );
  r.post('/api/alerts/test', { schema: { querystring: Query } }, async (req) =>
    s.alerts.test(req.principal, req.query.project_id),
  );
}
