import { PothosValidationError } from '@pothos/core';
import { GraphQLError } from 'graphql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SpyglassError } from '../errors.ts';
import type { LiveConnection } from '../live/live-clients.ts';
import type { Context } from './builder.ts';
import { toGraphQLError } from './errors.ts';
import { queryLimits } from './limits.ts';
import { schema } from './schema.ts';
import { replicaQueries } from './replica-reads.ts';
import { sharedSubscriptions } from './shared-subscribe.ts';
import { variableCoercion } from './variables.ts';
import { httpSignIn, signedOutOperations } from './ui-auth.ts';
import type { GraphqlDeps } from './yoga.ts';

export interface ServerContext {
  req: FastifyRequest;
  reply: FastifyReply;
  live?: LiveConnection;
}

export type GraphqlServer = YogaServerInstance<ServerContext, Context>;

/**
 * The GraphQL server behind /graphql (yoga.ts), with its schema: imported and built on first use,
 * not at start-up (the schema, graphql-yoga and its plugins were about half of the modules a
 * server loaded before listening: docs/benchmarks.md#memory-and-start-up-issue-28-target-4).
 */
export function createGraphqlServer(deps: GraphqlDeps): GraphqlServer {
  // Not a rest spread: it would copy the members once; deps reads them when used (app-routes.ts `pick`).
  const s = deps;
  const { logger } = deps;
  return createYoga<ServerContext, Context>({
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
}
