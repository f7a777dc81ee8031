import type { FastifyInstance } from 'fastify';
import { Type as T, type Static } from 'typebox';
import {
  toBlastRadiusJson,
  toCheckJson,
  toDriftImpactJson,
  toDriftJson,
  toHealthJson,
  toToolObservationJson,
} from '../model/health.ts';
import { toScorecardJson } from '../model/scorecard.ts';
import type { HealthService } from '../health/health-service.ts';
import type { ObservedToolsService } from '../health/observed-tools.ts';
import type { ScoringService } from '../scoring/scoring-service.ts';
import { typed } from '../http/route-schema.ts';
import { toolSnapshots } from '../http/tool-list.ts';
import { NullableString, OPTIONAL_BODY } from '../http/strict-body.ts';
import { describeRange, type IntRange } from '../model/int-range.ts';
import { BLAST_RADIUS_HOURS, DRIFT_IMPACT_HOURS, HISTORY_LIMIT } from '../health/health-service.ts';

const NameParams = T.Object({ name: T.String() });
const ProjectQuery = T.Object({ project_id: T.Optional(T.String()) });
// Whole numbers here; HealthService checks their ranges (and fills the defaults) for every adapter.
const Int = (range: IntRange) => T.Optional(T.Integer({ description: describeRange(range) }));
// A list of MCP tool objects, or `{tools, agent_name?, project_id?}`: one `if` so a bad tool is
// named in the spelling sent (["body", 0, "name"] or ["body", "tools", 0, "name"]), not twice.
const ToolList = T.Array(T.Object({ name: T.String() }, { additionalProperties: true }));
const Listed = T.Object({
  tools: ToolList,
  agent_name: T.Optional(NullableString()),
  project_id: T.Optional(NullableString()),
});
const ToolsBody = T.Unsafe<Static<typeof ToolList> | Static<typeof Listed>>({
  if: { type: 'array' },
  then: ToolList,
  else: Listed,
});
const ServerRequest = T.Object({
  server_name: T.Optional(NullableString()),
  project_id: T.Optional(NullableString()),
});

/** The services these routes use, and nothing else. */
export interface HealthRoutesDeps {
  health: HealthService;
  observedTools: ObservedToolsService;
  scoring: ScoringService;
}

/** docs/health.md#rest health routes, scoped to the caller's project like every read. */
export function registerHealthRoutes(app: FastifyInstance, s: HealthRoutesDeps): void {
  const h = s.health;
  const r = typed(app);

  r.get('/api/health/servers', { schema: { querystring: ProjectQuery } }, async (req) =>
    (await h.listLatest(req.principal, req.query.project_id)).map((x) => toHealthJson(x)),
  );

  r.get(
    '/api/health/servers/:name',
    { schema: { params: NameParams, querystring: ProjectQuery } },
    async (req) =>
      toHealthJson(await h.latest(req.principal, req.params.name, req.query.project_id)),
  );

  const HistoryQuery = T.Object({
    project_id: T.Optional(T.String()),
    limit: Int(HISTORY_LIMIT),
  });
  r.get(
    '/api/health/servers/:name/history',
    { schema: { params: NameParams, querystring: HistoryQuery } },
    async (req) => {
      const page = await h.history(req.principal, req.params.name, {
        projectId: req.query.project_id,
        limit: req.query.limit,
      });
      return page.items.map((x) => toHealthJson(x, { drift: true }));
    },
  );

  r.get(
    '/api/health/servers/:name/drift-history',
    { schema: { params: NameParams, querystring: HistoryQuery } },
    async (req) => {
      const page = await h.driftHistory(req.principal, req.params.name, {
        projectId: req.query.project_id,
        limit: req.query.limit,
      });
      return page.items.map(toDriftJson);
    },
  );

  r.get(
    '/api/health/servers/:name/drift-impact',
    {
      schema: {
        params: NameParams,
        querystring: T.Object({
          project_id: T.Optional(T.String()),
          tool_name: T.String({ minLength: 1 }),
          hours: Int(DRIFT_IMPACT_HOURS),
        }),
      },
    },
    async (req) =>
      toDriftImpactJson(
        await h.driftImpact(req.principal, {
          name: req.params.name,
          toolName: req.query.tool_name,
          hours: req.query.hours,
          projectId: req.query.project_id,
        }),
      ),
  );

  r.get(
    '/api/health/servers/:name/blast-radius',
    {
      schema: {
        params: NameParams,
        querystring: T.Object({
          project_id: T.Optional(T.String()),
          hours: Int(BLAST_RADIUS_HOURS),
        }),
      },
    },
    async (req) =>
      toBlastRadiusJson(
        await h.blastRadius(req.principal, {
          name: req.params.name,
          hours: req.query.hours,
          projectId: req.query.project_id,
        }),
      ),
  );

  r.get(
    '/api/health/servers/:name/scorecard',
    { schema: { params: NameParams, querystring: ProjectQuery } },
    async (req) =>
      toScorecardJson(await s.scoring.get(req.principal, req.params.name, req.query.project_id)),
  );

  // LangSight's list_tools wrapper: the tool list an agent saw, as the server's observed schema.
  r.post(
    '/api/servers/:name/tools',
    {
      ...OPTIONAL_BODY,
      schema: { params: NameParams, querystring: ProjectQuery, body: ToolsBody },
    },
    async (req, reply) => {
      const b = req.body;
      const listed = Array.isArray(b) ? { tools: b } : b;
      const input = {
        tools: toolSnapshots(listed.tools, Array.isArray(b) ? ['body'] : ['body', 'tools']),
        agentName: listed.agent_name,
        // An empty project_id is none (LangSight sends ""); the body's wins over the query's.
        projectId: listed.project_id || req.query.project_id,
      };
      const observed = await s.observedTools.record(req.principal, req.params.name, input);
      return reply.status(201).send(toToolObservationJson(observed));
    },
  );

  // An optional body `{server_name, project_id}`, or the same as query parameters; the body wins.
  r.post(
    '/api/health/check',
    {
      ...OPTIONAL_BODY,
      config: { access: 'write' },
      schema: { body: ServerRequest, querystring: ServerRequest },
    },
    async (req) => {
      const reports = await h.runChecks(req.principal, {
        projectId: req.body?.project_id ?? req.query.project_id,
        serverName: req.body?.server_name ?? req.query.server_name,
      });
      return reports.map(toCheckJson);
    },
  );
}
