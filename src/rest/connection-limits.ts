import type { ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { HttpServerLimits } from '../config/types.ts';

/**
 * Node's own timeouts for slow and idle clients: a request whose headers, or whole body, do not
 * arrive in time is answered 408 and its socket closed. Node checks them every
 * `connectionsCheckingInterval` (30 s by default, which would let a slow client stay twice as long).
 */
export function serverTimeouts(limits: HttpServerLimits): { http: ServerOptions; requestTimeout: number; keepAliveTimeout: number } {
  return {
    http: { headersTimeout: limits.headersTimeoutSeconds * 1000, connectionsCheckingInterval: 1000 },
    requestTimeout: limits.requestTimeoutSeconds * 1000,
    keepAliveTimeout: limits.keepAliveTimeoutSeconds * 1000,
  };
}

const REFUSAL = JSON.stringify({ detail: 'too many open connections from this address' });
const REFUSAL_RESPONSE = `HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(REFUSAL)}\r\n\r\n${REFUSAL}`;

/**
 * At most `max` open connections per client address; the next one gets a 429 and is closed, and
 * nothing it sends is served. Trusted proxies are exempt: many clients share their address. 0 = no cap.
 */
export function capConnectionsPerAddress(app: FastifyInstance, max: number, isExempt: (address: string) => boolean): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  const refused = new WeakSet<Socket>();
  // Before Node's own listener, so a refused socket is marked before any request on it is parsed.
  app.server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    if (isExempt(address)) return;
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      refused.add(socket);
      socket.end(REFUSAL_RESPONSE, () => socket.destroy());
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
  app.addHook('onRequest', async (req, reply) => {
    if (!refused.has(req.raw.socket)) return;
    reply.hijack();
    req.raw.socket.destroy();
  });
}
