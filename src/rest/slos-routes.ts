import type { FastifyInstance } from 'fastify';
import { Type as T, type Static } from 'typebox';
import type { SloService } from '../slos/slo-service.ts';
import { typed } from '../http/route-schema.ts';
import { OPTIONAL_BODY } from '../http/strict-body.ts';
import {
  SLO_METRICS,
  toSloJson,
  toSloStatusJson,
  type SloInput,
  type SloMetric,
} from '../model/slo.ts';
import { describeRange } from '../model/int-range.ts';
import { MAX_AGENT_NAME, SLO_WINDOW_HOURS } from '../slos/validate.ts';

const Query = T.Object({ project_id: T.Optional(T.String()) });
const IdParams = T.Object({ slo_id: T.String() });
const fields = {
  agent_name: T.String({ description: `not blank, at most ${MAX_AGENT_NAME} characters` }),
  metric: T.Unsafe<SloMetric>({ enum: [...SLO_METRICS] }),
  threshold: T.Number(),
  window_hours: T.Optional(T.Integer({ description: describeRange(SLO_WINDOW_HOURS) })),
};
// The body's shape; SloService checks the values (threshold by metric, window and name lengths,
// project_id) for every adapter, so REST and GraphQL refuse a value alike.
const CreateBody = T.Object(
  { ...fields, project_id: T.Optional(T.String()) },
  { additionalProperties: false },
);
const PatchBody = T.Partial(T.Object(fields), { additionalProperties: false });

/** The body in domain terms. */
function sloInput(b: Static<typeof CreateBody> | Static<typeof PatchBody>): SloInput {
  return {
    agentName: b.agent_name,
    metric: b.metric,
    threshold: b.threshold,
    windowHours: b.window_hours,
    projectId: 'project_id' in b ? b.project_id : undefined,
  };
}

/** The services these routes use, and nothing else. */
export interface SloRoutesDeps {
  slos: SloService;
}

/** SLOs (docs/slos.md#rest): definitions and their status now. Writes need the admin role (the default for non-GET). */
export function registerSloRoutes(app: FastifyInstance, s: SloRoutesDeps): void {
  const r = typed(app);

  r.get('/api/slos', { schema: { querystring: Query } }, async (req) =>
    (await s.slos.list(req.principal, req.query.project_id)).map(toSloJson),
  );

  r.post(
    '/api/slos',
    { ...OPTIONAL_BODY, schema: { querystring: Query, body: CreateBody } },
    async (req, reply) =>
      reply
        .status(201)
        .send(
          toSloJson(await s.slos.create(req.principal, sloInput(req.body), req.query.project_id)),
        ),
  );

  r.get(
    '/api/slos/status',
    {
      schema: {
        querystring: T.Object({
          project_id: T.Optional(T.String()),
          agent_name: T.Optional(T.String()),
        }),
      },
    },
    async (req) =>
      (
        await s.slos.status(req.principal, {
          projectId: req.query.project_id,
          agentName: req.query.agent_name,
        })
      ).map(toSloStatusJson),
  );

  r.patch(
    '/api/slos/:slo_id',
    { ...OPTIONAL_BODY, schema: { params: IdParams, querystring: Query, body: PatchBody } },
    async (req) =>
      toSloJson(
        await s.slos.update(
          req.principal,
          req.params.slo_id,
          sloInput(req.body),
          req.query.project_id,
        ),
      ),
  );

  r.delete(
    '/api/slos/:slo_id',
    { schema: { params: IdParams, querystring: Query } },
    async (req, reply) => {
      await s.slos.delete(req.principal, req.params.slo_id, req.query.project_id);
      return reply.status(204).send();
    },
  );
}
