import { PothosValidationError } from '@pothos/core';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { SpyglassError } from '../errors.ts';
import type { LiveConnection } from '../live/live-clients.ts';
import { checkBrowserOrigin } from '../auth/browser-origin.ts';
import type { Logger } from 'pino';
import type { Context, GraphqlServices } from './builder.ts';
import { graphiqlPage, wantsGraphiql } from './graphiql.ts';
import { queryLimits } from './limits.ts';
import { schema } from './schema.ts';
import { replicaQueries } from './replica-reads.ts';
import { sharedSubscriptions } from './shared-subscribe.ts';
import { serveGraphqlWs } from './ws.ts';
import { variableCoercion } from './variables.ts';
import { httpSignIn, signedOutOperations } from './ui-auth.ts';

/** What GraphQL uses: its resolvers' services (builder.ts) and a logger for the errors it masks. */
export interface GraphqlDeps extends GraphqlServices {
  logger: Logger;
}

interface ServerContext {
  req: FastifyRequest;
  reply: FastifyReply;
  live?: LiveConnection;
}

/**
 * GraphQL at /graphql over the same services and auth as REST. Errors are masked except
 * SpyglassErrors, which carry their code and HTTP status in `extensions`; errors raised before
 * GraphQL runs (authentication, rate limits, Origin checks) get the same GraphQL shape. Depth,
 * cost and alias limits keep one query from taking the server down. GraphiQL (development only)
 * is served from the package, without a key, under its own CSP.
 */
export function registerGraphql(app: FastifyInstance, deps: GraphqlDeps): void {
  // Not a rest spread: it would copy the members once; deps reads them when used (app-routes.ts `pick`).
  const s = deps;
  const { logger } = deps;
  const graphiql = s.config.graphql.graphiql;
  const yoga = createYoga<ServerContext, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: false,
    landingPage: false,
    logging: false,
    context: ({ req, reply, live }) => ({
      principal: req.principal,
      services: s,
      ...(live ? { live } : {}),
      ...(reply !== undefined ? { http: httpSignIn(req, reply) } : {}),
    }),
    plugins: [
      signedOutOperations(),
      variableCoercion(),
      ...queryLimits(),
      sharedSubscriptions(),
      ...(s.config.databaseReadUrl ? [replicaQueries()] : []),
    ],
    maskedErrors: {
      maskError: (error, message) => {
        const original = error instanceof GraphQLError ? error.originalError : error;
        if (original instanceof SpyglassError) return toGraphQLError(original);
        // Pothos refuses what the client sent (a malformed global id or cursor, a negative `first`).
        if (original instanceof PothosValidationError)
          return new GraphQLError(original.message, { extensions: { code: 'BAD_USER_INPUT' } });
        if (error instanceof GraphQLError && !error.originalError) return error;
        logger.error({ err: original }, 'graphql resolver failed');
        return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
      },
    },
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
    errorHandler: (err, _req, reply) => sendGraphQLError(err, reply),
    handler: async (req, reply) => {
      if (graphiql && wantsGraphiql(req)) {
        const page = await graphiqlPage();
        return reply
          .type('text/html; charset=utf-8')
          .header('content-security-policy', page.csp)
          .send(page.html);
      }
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
      response.headers.forEach((value, key) => void reply.header(key, value));
      void reply.status(response.status);
      return reply.send(response.body);
    },
  });
}

function toGraphQLError(err: SpyglassError): GraphQLError {
  return new GraphQLError(err.message, {
    extensions: {
      code: err.code.toUpperCase(),
      status: err.status,
      ...(err.issues ? { issues: err.issues } : {}),
    },
  });
}

/** The GraphQL-over-HTTP shape for errors raised before GraphQL runs, with their HTTP status. */
function sendGraphQLError(err: FastifyError | SpyglassError | Error, reply: FastifyReply): void {
  let status = 500;
  let error: GraphQLError;
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
  void reply
    .status(status)
    .type('application/graphql-response+json; charset=utf-8')
    .send({ errors: [error.toJSON()] });
}
