import type { FastifyInstance } from 'fastify';
import { scopeProject } from '../auth/principal.ts';
import { SpyglassError, notFound, type ValidationIssue } from '../errors.ts';
import { toDriftJson, toHealthJson, toToolObservationJson } from '../model/health.ts';
import { toScorecardJson } from '../scoring/scorecard.ts';
import type { Services } from '../services.ts';
import { parseIntParam } from '../traces/query-params.ts';
import { serverRequest } from './server-request.ts';

type NameParams = { name: string };
type Query = Record<string, string | undefined>;

/** docs/health.md#rest health routes, scoped to the caller's project like every read. */
export function registerHealthRoutes(app: FastifyInstance, s: Services): void {
  const h = s.health;

  app.get('/api/health/servers', async (req) => {
    const q = req.query as Query;
    return (await h.listLatest(scopeProject(req.principal, q.project_id))).map((r) =>
      toHealthJson(r),
    );
  });

  app.get<{ Params: NameParams }>('/api/health/servers/:name', async (req) => {
    const q = req.query as Query;
    return toHealthJson(await h.latest(scopeProject(req.principal, q.project_id), req.params.name));
  });

  app.get<{ Params: NameParams }>('/api/health/servers/:name/history', async (req) => {
    const q = req.query as Query;
    const limit = validated((issues) => parseIntParam('limit', q.limit, 10, 1, 100, issues));
    return (await h.history(scopeProject(req.principal, q.project_id), req.params.name, limit)).map(
      (r) => toHealthJson(r, { drift: true }),
    );
  });

  app.get<{ Params: NameParams }>('/api/health/servers/:name/drift-history', async (req) => {
    const q = req.query as Query;
    const limit = validated((issues) => parseIntParam('limit', q.limit, 10, 1, 100, issues));
    return (
      await h.driftHistory(scopeProject(req.principal, q.project_id), req.params.name, limit)
    ).map(toDriftJson);
  });

  app.get<{ Params: NameParams }>('/api/health/servers/:name/drift-impact', async (req) => {
    const q = req.query as Query;
    const { tool, hours } = validated((issues) => {
      if (!q.tool_name)
        issues.push({ loc: ['query', 'tool_name'], msg: 'Field required', type: 'missing' });
      return {
        tool: q.tool_name ?? '',
        hours: parseIntParam('hours', q.hours, 24, 1, 168, issues),
      };
    });
    return h.driftImpact(scopeProject(req.principal, q.project_id), req.params.name, tool, hours);
  });

  app.get<{ Params: NameParams }>('/api/health/servers/:name/blast-radius', async (req) => {
    const q = req.query as Query;
    const hours = validated((issues) => parseIntParam('hours', q.hours, 24, 1, 720, issues));
    return h.blastRadius(scopeProject(req.principal, q.project_id), req.params.name, hours);
  });

  app.get<{ Params: NameParams }>('/api/health/servers/:name/scorecard', async (req) => {
    const q = req.query as Query;
    return toScorecardJson(await s.scoring.get(req.principal, req.params.name, q.project_id));
  });

  // LangSight's list_tools wrapper: the tool list an agent saw, as the server's observed schema.
  app.post<{ Params: NameParams }>('/api/servers/:name/tools', async (req, reply) =>
    reply
      .status(201)
      .send(
        toToolObservationJson(
          await s.observedTools.record(
            req.principal,
            req.params.name,
            req.body,
            req.query as Query,
          ),
        ),
      ),
  );

  app.post('/api/health/check', { config: { access: 'write' } }, async (req) => {
    const { projectId, serverName: name } = serverRequest(req);
    let targets = await h.targets(projectId);
    if (name) {
      targets = targets.filter((t) => t.name === name);
      if (targets.length === 0) throw notFound(`no configured server ${name}`);
    }
    const reports = await h.checkAll(targets);
    return reports.map((r) => ({
      ...toHealthJson(r.result, { drift: true }),
      drift: r.drift ? toDriftJson(r.drift) : null,
    }));
  });
}

function validated<T>(fn: (issues: ValidationIssue[]) => T): T {
  const issues: ValidationIssue[] = [];
  const value = fn(issues);
  if (issues.length > 0) throw new SpyglassError('validation', 'invalid query', { issues });
  return value;
}
