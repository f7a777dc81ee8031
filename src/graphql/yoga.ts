import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { SpyglassError } from '../errors.ts';
import { checkBrowserOrigin } from '../auth/browser-origin.ts';
import type { Logger } from 'pino';
import type { GraphqlServices } from './builder.ts';
import { graphiqlPage, wantsGraphiql } from './graphiql.ts';
import { serveGraphqlWs } from './ws.ts';
import type { GraphqlServer } from './yoga-server.ts';

/** What GraphQL uses: its resolvers' services (builder.ts) and a logger for the errors it masks. */
export interface GraphqlDeps extends GraphqlServices {
  logger: Logger;
}

/** How long after listening the GraphQL server is built when no request asked for it before. */
const BUILD_AFTER_LISTEN_MS = 1000;

/**
 * GraphQL at /graphql over the same services and auth as REST. Errors are masked except
 * SpyglassErrors, which carry their code and HTTP status in `extensions`; errors raised before
 * GraphQL runs (authentication, rate limits, Origin checks) get the same GraphQL shape. Depth,
 * cost and alias limits keep one query from taking the server down. GraphiQL (development only)
 * is served from the package, without a key, under its own CSP. The GraphQL server itself
 * (yoga-server.ts) is loaded and built on first use, or a second after the server listens.
 */
export function registerGraphql(app: FastifyInstance, deps: GraphqlDeps): void {
  const s = deps;
  const graphiql = s.config.graphql.graphiql;
  // Built on first use (a request or a WebSocket subscription), or soon after the server listens.
  let built: Promise<GraphqlServer> | undefined;
  const yoga = () =>
    (built ??= import('./yoga-server.ts').then((m) => m.createGraphqlServer(deps)));
  app.addHook('onListen', () => {
    // A second after start-up (readiness is answered first), unless a request came first.
    setTimeout(
      () =>
        void yoga().catch((err: unknown) =>
          deps.logger.error({ err }, 'building the GraphQL server failed'),
        ),
      BUILD_AFTER_LISTEN_MS,
    ).unref();
  });

  serveGraphqlWs(app, yoga, s);
  app.route({
    url: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    // Queries travel by POST too; mutations check the admin role themselves. The GraphiQL page
    // holds no data, and a browser cannot send a key when it opens it.
    config: {
      access: 'read',
      publicWhen: (req) => graphiql && wantsGraphiql(req),
      sessionCookie: true,
    },
    onRequest: checkBrowserOrigin(s.config.http.allowedOrigins),
    errorHandler: (err, _req, reply) => graphqlErrorBody(err, reply),
    handler: async (req, reply) => {
      if (graphiql && wantsGraphiql(req)) {
        const page = await graphiqlPage();
        return reply
          .type('text/html; charset=utf-8')
          .header('content-security-policy', page.csp)
          .send(page.html);
      }
      const response = await (
        await yoga()
      ).handleNodeRequestAndResponse(req, reply, { req, reply });
      response.headers.forEach((value, key) => void reply.header(key, value));
      void reply.status(response.status);
      return reply.send(response.body);
    },
  });
}

/**
 * The GraphQL-over-HTTP shape for errors raised before GraphQL runs, with their HTTP status: sets
 * the status and type and returns the body. graphql loads with the first such error (or with the
 * GraphQL server), not at start.
 */
async function graphqlErrorBody(
  err: FastifyError | SpyglassError | Error,
  reply: FastifyReply,
): Promise<{ errors: unknown[] }> {
  const { GraphQLError, toGraphQLError } = await import('./errors.ts');
  let status = 500;
  let error: InstanceType<typeof GraphQLError>;
  if (err instanceof SpyglassError) {
    status = err.status;
    error = toGraphQLError(err);
    if (err.retryAfter !== undefined) void reply.header('Retry-After', String(err.retryAfter));
  } else {
    const fe = err as FastifyError;
    status = fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500 ? fe.statusCode : 500;
    const code =
      status === 413 ? 'PAYLOAD_TOO_LARGE' : status < 500 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR';
    if (status >= 500) reply.log.error({ err }, 'graphql request failed');
    error = new GraphQLError(status < 500 ? fe.message : 'internal error', {
      extensions: { code, status },
    });
  }
  void reply.status(status).type('application/graphql-response+json; charset=utf-8');
  return { errors: [error.toJSON()] };
}
