import type { FastifyInstance } from 'fastify';
import type { ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { YogaServerInstance } from 'graphql-yoga';
import { WebSocketServer } from 'ws';
import type { Principal } from '../auth/principal.ts';
import type { Services } from '../services.ts';

type Enveloped = ReturnType<YogaServerInstance<Record<string, unknown>, Record<string, unknown>>['getEnveloped']>;

/**
 * GraphQL over WebSocket (graphql-ws protocol) at /graphql, through the same yoga instance, so
 * the same schema, limits and error masking apply. The key comes from the upgrade request's
 * headers or from connectionParams `{ apiKey }`; a connection without a valid one is refused.
 */
export function serveGraphqlWs(app: FastifyInstance, yoga: YogaServerInstance<any, any>, s: Services): void {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  app.server.on('upgrade', (req, socket, head) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/graphql') return void socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  app.addHook('onClose', async () => {
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
  });

  const principals = new WeakMap<object, Principal>();
  useServer(
    {
      onConnect: async (ctx) => {
        const params = (ctx.connectionParams ?? {}) as { apiKey?: string; 'x-api-key'?: string };
        const key = params.apiKey ?? params['x-api-key'];
        const headers = { ...ctx.extra.request.headers, ...(key ? { 'x-api-key': key } : {}) };
        try {
          principals.set(ctx.extra.socket, await s.auth.authenticate({ headers, remoteAddress: ctx.extra.request.socket.remoteAddress ?? '' }));
          return true;
        } catch {
          return false;
        }
      },
      execute: (args: ExecutionArgs) => (args.rootValue as Enveloped).execute(args),
      subscribe: (args: ExecutionArgs) => (args.rootValue as Enveloped).subscribe(args),
      onSubscribe: async (ctx, _id, payload) => {
        const req = { principal: principals.get(ctx.extra.socket) };
        const enveloped = yoga.getEnveloped({ ...ctx, req, socket: ctx.extra.socket, params: payload }) as Enveloped;
        const args = {
          schema: enveloped.schema,
          operationName: payload.operationName,
          document: enveloped.parse(payload.query),
          variableValues: payload.variables,
          contextValue: await enveloped.contextFactory(),
          rootValue: enveloped,
        };
        const errors = enveloped.validate(args.schema, args.document);
        return errors.length > 0 ? errors : args;
      },
    },
    wss,
  );
}
