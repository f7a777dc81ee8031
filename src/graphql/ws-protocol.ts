import type { IncomingMessage } from 'node:http';
import { GraphQLError, type ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { YogaServerInstance } from 'graphql-yoga';
import { WebSocket, WebSocketServer } from 'ws';
import { corkForTurn } from '../live/cork.ts';
import { readKey } from '../auth/authenticate.ts';
import type { Principal } from '../auth/principal.ts';
import { sha256 } from '../auth/secrets.ts';
import { SpyglassError } from '../errors.ts';
import type { LiveConnection } from '../live/live-clients.ts';
import { cookieSessionRefusal } from '../auth/browser-origin.ts';
import { sessionTokenFrom } from '../auth/ui-sessions.ts';
import { clientId, rateLimit, type WsDeps } from './ws-limit.ts';

type Enveloped = ReturnType<
  YogaServerInstance<Record<string, unknown>, Record<string, unknown>>['getEnveloped']
>;
interface Session {
  principal: Principal;
  conn: LiveConnection;
  who: string;
}

/**
 * The WebSocket server for GraphQL and the graphql-ws protocol on it (ws.ts admits the upgrades): connection_init authenticates
 * (the key in connectionParams `{ apiKey }` or headers, or the dashboard's session cookie) and
 * takes a live client's place; each subscription is rate-limited and runs through the GraphQL
 * server's envelope. Loaded with the first upgrade admitted, so ws and graphql are not loaded at
 * start.
 */
export function startGraphqlWs(
  yoga: () => Promise<YogaServerInstance<any, any>>,
  s: WsDeps,
): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const sessions = new WeakMap<object, Session>();
  useServer(
    {
      onConnect: async (ctx) => {
        const socket = ctx.extra.socket;
        const req = ctx.extra.request;
        const key = keyFromParams(ctx.connectionParams);
        const headers = { ...req.headers, ...(key ? { 'x-api-key': key } : {}) };
        // The dashboard's session cookie, when no key is given, from this origin only (docs/ui.md#auth).
        const sessionToken = readKey(headers) ? undefined : sessionTokenFrom(req.headers.cookie);
        const cookieRefusal = sessionToken
          ? cookieSessionRefusal(req.headers, { method: 'GET', websocket: true })
          : null;
        if (cookieRefusal) return closeWith(socket, 4403, `Forbidden: ${cookieRefusal}`);
        let principal: Principal;
        try {
          principal = await s.auth.authenticate({
            headers,
            remoteAddress: req.socket.remoteAddress ?? '',
            ...(sessionToken ? { sessionToken } : {}),
          });
        } catch (err) {
          return closeWith(
            socket,
            4403,
            `Forbidden: ${err instanceof SpyglassError ? err.message : 'authentication failed'}`,
          );
        }
        const who = key ? `key:${sha256(key).slice(0, 24)}` : clientId(req, s);
        const limited = await rateLimit(s, who);
        if (limited) return closeWith(socket, 4429, `Too many requests: ${limited.detail}`);
        const conn = await s.liveClients.connect(
          'graphql-ws',
          principal,
          (reason, code) =>
            void closeWith(socket, code, code === 4403 ? `Forbidden: ${reason}` : reason),
        );
        if ('refused' in conn) return closeWith(socket, 1013, `Try again later: ${conn.refused}`);
        // The client left while its place was being taken (a round trip to Redis).
        if (socket.readyState !== WebSocket.OPEN) {
          conn.release();
          return false;
        }
        socket.once('close', () => conn.release());
        conn.ready = congestion(req.socket);
        const cork = corkForTurn(req.socket, s.delivery);
        const send = socket.send.bind(socket);
        socket.send = ((...args: Parameters<WebSocket['send']>) => (
          cork(),
          send(...args)
        )) as WebSocket['send'];
        sessions.set(socket, { principal, conn, who });
        return true;
      },
      execute: (args: ExecutionArgs) => (args.rootValue as Enveloped).execute(args),
      subscribe: (args: ExecutionArgs) => (args.rootValue as Enveloped).subscribe(args),
      onSubscribe: async (ctx, _id, payload) => {
        const session = sessions.get(ctx.extra.socket);
        if (!session)
          return [new GraphQLError('not connected', { extensions: { code: 'UNAUTHENTICATED' } })];
        const limited = await rateLimit(s, session.who);
        if (limited)
          return [
            new GraphQLError(limited.detail, { extensions: { code: 'RATE_LIMITED', status: 429 } }),
          ];
        const enveloped = (await yoga()).getEnveloped({
          ...ctx,
          req: { principal: session.principal },
          live: session.conn,
          socket: ctx.extra.socket,
          params: payload,
        }) as Enveloped;
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
  return wss;
}

/** While the TCP socket under a WebSocket has more queued than it can send: until it drains or closes. */
function congestion(tcp: IncomingMessage['socket']): () => Promise<void> | undefined {
  return () => {
    if (!tcp.writableNeedDrain || tcp.destroyed) return undefined;
    return new Promise<void>((resolve) => {
      const done = () => {
        tcp.off('drain', done);
        tcp.off('close', done);
        resolve();
      };
      tcp.once('drain', done);
      tcp.once('close', done);
    });
  };
}

function keyFromParams(params: Readonly<Record<string, unknown>> | undefined): string | undefined {
  for (const [name, value] of Object.entries(params ?? {})) {
    if (typeof value !== 'string') continue;
    const n = name.toLowerCase();
    if (n === 'apikey' || n === 'x-api-key') return value.trim();
    if (n === 'authorization') return /^Bearer\s+(\S+)$/i.exec(value)?.[1];
  }
  return undefined;
}

/** Closes with a code and a reason a client can show (at most 123 bytes, as WebSocket allows). */
function closeWith(socket: WebSocket, code: number, reason: string): false {
  if (socket.readyState === WebSocket.OPEN)
    socket.close(code, Buffer.from(reason).subarray(0, 123).toString());
  return false;
}
