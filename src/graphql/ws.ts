import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { GraphQLError, type ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { YogaServerInstance } from 'graphql-yoga';
import proxyaddr from 'proxy-addr';
import { WebSocket, WebSocketServer } from 'ws';
import { corkForTurn } from '../live/cork.ts';
import { readKey } from '../auth/authenticate.ts';
import type { Principal } from '../auth/principal.ts';
import { sha256 } from '../auth/secrets.ts';
import { SpyglassError } from '../errors.ts';
import type { LiveConnection } from '../live/live-clients.ts';
import { browserRefusal, cookieSessionRefusal } from '../auth/browser-origin.ts';
import { sessionTokenFrom } from '../auth/ui-sessions.ts';
import type { GraphqlServices } from './builder.ts';

type Enveloped = ReturnType<
  YogaServerInstance<Record<string, unknown>, Record<string, unknown>>['getEnveloped']
>;
interface Session {
  principal: Principal;
  conn: LiveConnection;
  who: string;
}

/** What the WebSocket transport uses: the handshake's checks and the live budget. */
export type WsDeps = Pick<
  GraphqlServices,
  'auth' | 'config' | 'limiter' | 'liveClients' | 'delivery'
>;

/**
 * GraphQL over WebSocket (graphql-ws protocol) at /graphql, through the same yoga instance (built
 * on first use: yoga.ts), so the same schema, limits and error masking apply. The upgrade is checked before a socket exists
 * (Origin and Host, rate limit per address, the key when headers carry one, the live budget); the
 * key itself may come in connectionParams `{ apiKey }`, checked at connection_init. A connection
 * is one live client, with at most `maxSubscriptions` subscriptions, and is closed with a reason
 * when its key is revoked.
 */
export function serveGraphqlWs(
  app: FastifyInstance,
  yoga: () => Promise<YogaServerInstance<any, any>>,
  s: WsDeps,
): void {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node drops its own error handler from an upgrading socket; while the checks below run, a
    // reset from the client must not become an uncaught exception.
    socket.on('error', () => socket.destroy());
    void admitUpgrade(req, s).then(
      (refusal) => {
        if (refusal) return refuse(socket, refusal.status, refusal.detail, refusal.retryAfter);
        wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
      },
      () => refuse(socket, 500, 'internal error'),
    );
  });
  app.addHook('onClose', async () => {
    for (const client of wss.clients) client.close(1001, 'server shutting down');
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
  });

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
}

interface Refusal {
  status: number;
  detail: string;
  retryAfter?: number;
}

/** The checks an upgrade passes before a socket exists; null admits it. */
async function admitUpgrade(req: IncomingMessage, s: WsDeps): Promise<Refusal | null> {
  if (new URL(req.url ?? '/', 'http://x').pathname !== '/graphql')
    return { status: 404, detail: `no WebSocket endpoint ${(req.url ?? '/').split('?')[0]}` };
  const refusal = browserRefusal(req.headers, s.config.http.allowedOrigins);
  if (refusal) return { status: 403, detail: `cross-origin request refused: ${refusal}` };
  const limited = await rateLimit(s, clientId(req, s));
  if (limited) return limited;
  if (readKey(req.headers)) {
    try {
      await s.auth.authenticate({
        headers: req.headers,
        remoteAddress: req.socket.remoteAddress ?? '',
      });
    } catch (err) {
      return {
        status: 401,
        detail: err instanceof SpyglassError ? err.message : 'authentication failed',
      };
    }
  }
  const max = s.liveClients.limits.maxClients;
  if (s.liveClients.count >= max)
    return { status: 503, detail: `too many live clients (max ${max})`, retryAfter: 5 };
  return null;
}

async function rateLimit(s: WsDeps, who: string): Promise<Refusal | null> {
  if (!s.config.rateLimits.enabled) return null;
  const r = await s.limiter.take('graphql-ws', s.config.rateLimits.default, who);
  return r.ok
    ? null
    : {
        status: 429,
        detail: `Rate limit exceeded: ${r.limit} per 1 minute`,
        retryAfter: r.retryAfterSeconds,
      };
}

/** The client address, X-Forwarded-For counting only from trusted proxies (as for HTTP routes). */
function clientId(req: IncomingMessage, s: WsDeps): string {
  return `ip:${proxyaddr(req, (addr) => s.auth.isTrustedProxy(addr))}`;
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

function refuse(socket: Duplex, status: number, detail: string, retryAfter?: number): void {
  const body = JSON.stringify({ detail });
  const reason =
    {
      401: 'Unauthorized',
      403: 'Forbidden',
      404: 'Not Found',
      429: 'Too Many Requests',
      503: 'Service Unavailable',
    }[status] ?? 'Error';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `${retryAfter ? `Retry-After: ${retryAfter}\r\n` : ''}Connection: close\r\n\r\n${body}`,
  );
}
