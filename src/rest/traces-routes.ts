import type { FastifyInstance } from 'fastify';
import { Type as T, type Static } from 'typebox';
import type { SpanQuery, SpansService } from '../traces/spans-service.ts';
import { queryInt, queryString as str, queryTime } from '../http/query-values.ts';
import { typed } from '../http/route-schema.ts';
import { JSON_TYPE } from '../http/json-type.ts';

const SpansQuery = T.Object({
  project_id: T.Optional(T.String()),
  server_name: T.Optional(T.String()),
  tool_name: T.Optional(T.String()),
  session_id: T.Optional(T.String()),
  trace_id: T.Optional(T.String()),
  agent_name: T.Optional(T.String()),
  status: T.Optional(T.String()),
  span_type: T.Optional(T.String()),
  since: T.Optional(T.String()),
  until: T.Optional(T.String()),
  limit: T.Optional(T.String()),
  cursor: T.Optional(T.String()),
});

type Query = Static<typeof SpansQuery>;

/** The query string in domain terms; SpansService checks the values. */
function spansQuery(q: Query): SpanQuery {
  return {
    projectId: str(q.project_id),
    serverName: str(q.server_name),
    toolName: str(q.tool_name),
    sessionId: str(q.session_id),
    traceId: str(q.trace_id),
    agentName: str(q.agent_name),
    status: str(q.status),
    spanType: str(q.span_type),
    since: queryTime(q.since),
    until: queryTime(q.until),
    limit: queryInt(q.limit),
    cursor: str(q.cursor),
  };
}

/** The services these routes use, and nothing else. */
export interface TracesRoutesDeps {
  spans: SpansService;
}

/** Reading spans (docs/api.md#rest); the next page's cursor is the X-Next-Cursor header. */
export function registerTracesRoutes(app: FastifyInstance, s: TracesRoutesDeps): void {
  typed(app).get(
    '/api/traces/spans',
    { schema: { querystring: SpansQuery } },
    // The JSON's bytes as the service wrote them: what returning the spans' toSpanJson sent, with
    // the content type Fastify gives a returned object.
    async (req, reply) => {
      const page = await s.spans.queryJson(req.principal, spansQuery(req.query));
      if (page.nextCursor) void reply.header('X-Next-Cursor', page.nextCursor);
      return reply.type(JSON_TYPE).send(page.json);
    },
  );
}
