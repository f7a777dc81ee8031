import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { SpyglassError } from '../errors.ts';
import type { Services } from '../services.ts';
import type { Context } from './builder.ts';
import { schema } from './schema.ts';
import { serveGraphqlWs } from './ws.ts';

interface ServerContext {
  req: FastifyRequest;
  reply: FastifyReply;
}

/**
 * GraphQL at /graphql over the same services and auth as REST. Errors are masked except
 * SpyglassErrors, which carry their code and HTTP status in `extensions`. Depth, cost and alias
 * limits keep one query from taking the server down.
 */
export function registerGraphql(app: FastifyInstance, s: Services): void {
  const yoga = createYoga<ServerContext, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: process.env.NODE_ENV !== 'production',
    landingPage: false,
    logging: false,
    context: ({ req }) => ({ principal: req.principal, services: s }),
    plugins: [maxDepthPlugin({ n: 8 }), costLimitPlugin({ maxCost: 5000 }), maxAliasesPlugin({ n: 15 })],
    maskedErrors: {
      maskError: (error, message) => {
        const original = error instanceof GraphQLError ? error.originalError : error;
        if (original instanceof SpyglassError) {
          return new GraphQLError(original.message, {
            extensions: { code: original.code.toUpperCase(), status: original.status, ...(original.issues ? { issues: original.issues } : {}) },
          });
        }
        if (error instanceof GraphQLError && !error.originalError) return error;
        s.logger.error({ err: original }, 'graphql resolver failed');
        return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
      },
    },
  });

  serveGraphqlWs(app, yoga, s);
  app.route({
    url: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    // Queries travel by POST too; mutations check the admin role themselves.
    config: { access: 'read' },
    handler: async (req, reply) => {
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
      response.headers.forEach((value, key) => void reply.header(key, value));
      void reply.status(response.status);
      return reply.send(response.body);
    },
  });
}
