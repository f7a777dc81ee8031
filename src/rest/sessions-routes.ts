import type { FastifyInstance } from 'fastify';
import { Type as T, type Static } from 'typebox';
import { toLineageJson } from '../model/session.ts';
import type { SessionsService, Window } from '../sessions/sessions-service.ts';
import { queryInt, queryString as str, queryTime } from '../http/query-values.ts';
import { typed } from '../http/route-schema.ts';
import { JSON_TYPE } from '../http/json-type.ts';

const WindowQuery = {
  project_id: T.Optional(T.String()),
  since: T.Optional(T.String()),
  until: T.Optional(T.String()),
  hours: T.Optional(T.String()),
};
const LineageQuery = T.Object(WindowQuery);
const SessionsQuery = T.Object({
  ...WindowQuery,
  agent_name: T.Optional(T.String()),
  health_tag: T.Optional(T.String()),
  limit: T.Optional(T.String()),
  cursor: T.Optional(T.String()),
});
const SessionParams = T.Object({ session_id: T.String() });
const ProjectQuery = T.Object({ project_id: T.Optional(T.String()) });

/** The window of the query string in domain terms; SessionsService checks the values. */
function window(q: Static<typeof LineageQuery>): Window {
  return {
    projectId: str(q.project_id),
    since: queryTime(q.since),
    until: queryTime(q.until),
    hours: queryInt(q.hours),
  };
}

/** The services these routes use, and nothing else. */
export interface SessionRoutesDeps {
  sessions: SessionsService;
}

/** Sessions, span trees and the lineage graph (docs/api.md#rest). */
export function registerSessionRoutes(app: FastifyInstance, s: SessionRoutesDeps): void {
  const r = typed(app);
  // The JSON's bytes as the service wrote them: what returning the sessions' toSessionJson sent.
  r.get('/api/agents/sessions', { schema: { querystring: SessionsQuery } }, async (req, reply) => {
    const q = req.query;
    const page = await s.sessions.listJson(req.principal, {
      ...window(q),
      agentName: str(q.agent_name),
      healthTag: str(q.health_tag),
      limit: queryInt(q.limit),
      cursor: str(q.cursor),
    });
    if (page.nextCursor) void reply.header('X-Next-Cursor', page.nextCursor);
    return reply.type(JSON_TYPE).send(page.json);
  });

  r.get(
    '/api/agents/sessions/:session_id',
    { schema: { params: SessionParams, querystring: ProjectQuery } },
    // The JSON's bytes as the service wrote them: what returning toSessionTreeJson(tree) sent, with
    // the content type Fastify gives a returned object.
    async (req, reply) =>
      reply
        .type(JSON_TYPE)
        .send(
          await s.sessions.treeJson(
            req.principal,
            req.params.session_id,
            str(req.query.project_id),
          ),
        ),
  );

  // Sent as the bytes of JSON.stringify (what Fastify writes for a returned object): Fastify's
  // length of the string and the socket's encoding of it each copied it again.
  r.get('/api/agents/lineage', { schema: { querystring: LineageQuery } }, async (req, reply) =>
    reply
      .type(JSON_TYPE)
      .send(
        Buffer.from(
          JSON.stringify(toLineageJson(await s.sessions.lineage(req.principal, window(req.query)))),
        ),
      ),
  );
}
