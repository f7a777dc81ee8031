import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { YogaServerInstance } from 'graphql-yoga';
import type { WebSocketServer } from 'ws';
import { readKey } from '../auth/authenticate.ts';
import { SpyglassError } from '../errors.ts';
import { browserRefusal } from '../auth/browser-origin.ts';
import { clientId, rateLimit, type Refusal, type WsDeps } from './ws-limit.ts';

export type { WsDeps } from './ws-limit.ts';

/**
 * GraphQL over WebSocket (graphql-ws protocol) at /graphql, through the same yoga instance (built
 * on first use: yoga.ts), so the same schema, limits and error masking apply. The upgrade is checked before a socket exists
 * (Origin and Host, rate limit per address, the key when headers carry one, the live budget); the
 * key itself may come in connectionParams `{ apiKey }`, checked at connection_init. A connection
 * is one live client, with at most `maxSubscriptions` subscriptions, and is closed with a reason
 * when its key is revoked. The protocol itself (graphql-ws, and with it graphql) is in
 * ws-protocol.ts, loaded with the first upgrade admitted.
 */
export function serveGraphqlWs(
  app: FastifyInstance,
  yoga: () => Promise<YogaServerInstance<any, any>>,
  s: WsDeps,
): void {
  // ws, graphql-ws (and graphql) load with the first upgrade admitted, not at start
  // (ws-protocol.ts makes the WebSocket server).
  let protocol: Promise<WebSocketServer> | undefined;
  let closed = false;
  const loadProtocol = () =>
    (protocol ??= import('./ws-protocol.ts').then((m) => m.startGraphqlWs(yoga, s)));
  const admit = async (
    req: IncomingMessage,
  ): Promise<{ refusal: Refusal } | { wss: WebSocketServer }> => {
    const refusal = await admitUpgrade(req, s);
    if (refusal) return { refusal };
    // Admitted while the server closed: no WebSocket server is made after its onClose ran.
    if (closed) return { refusal: { status: 503, detail: 'server shutting down' } };
    return { wss: await loadProtocol() };
  };
  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node drops its own error handler from an upgrading socket; while the checks below run, a
    // reset from the client must not become an uncaught exception.
    socket.on('error', () => socket.destroy());
    void admit(req).then(
      (admitted) => {
        if ('refusal' in admitted) {
          const { refusal } = admitted;
          return refuse(socket, refusal.status, refusal.detail, refusal.retryAfter);
        }
        const { wss } = admitted;
        wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
      },
      () => refuse(socket, 500, 'internal error'),
    );
  });
  app.addHook('onClose', async () => {
    closed = true;
    const wss = await protocol?.catch(() => undefined);
    if (!wss) return;
    for (const client of wss.clients) client.close(1001, 'server shutting down');
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
  });
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
