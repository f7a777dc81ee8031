import type { ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { HttpServerLimits } from '../config/types.ts';
import type { SharedSlots } from '../scale/coord/slots.ts';

/**
 * Node's own timeouts for slow and idle clients: a request whose headers, or whole body, do not
 * arrive in time is answered 408 and its socket closed. Node checks them every
 * `connectionsCheckingInterval` (30 s by default, which would let a slow client stay twice as long).
 */
export function serverTimeouts(limits: HttpServerLimits): {
  http: ServerOptions;
  requestTimeout: number;
  keepAliveTimeout: number;
} {
  return {
    http: {
      headersTimeout: limits.headersTimeoutSeconds * 1000,
      connectionsCheckingInterval: 1000,
    },
    requestTimeout: limits.requestTimeoutSeconds * 1000,
    keepAliveTimeout: limits.keepAliveTimeoutSeconds * 1000,
  };
}

const REFUSAL = JSON.stringify({ detail: 'too many open connections from this address' });
const REFUSAL_RESPONSE = `HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(REFUSAL)}\r\n\r\n${REFUSAL}`;

/**
 * At most `max` open connections per client address, counted across every worker and instance
 * when Redis is configured (`slots`, src/scale/coord/slots.ts); the next one gets a 429 and is closed, and
 * nothing it sends is served (a request that arrives before the count answers waits for it).
 * Trusted proxies are exempt: many clients share their address. 0 = no cap.
 */
export function capConnectionsPerAddress(
  app: FastifyInstance,
  max: number,
  isExempt: (address: string) => boolean,
  slots: SharedSlots,
): void {
  if (max <= 0) return;
  const verdicts = new WeakMap<Socket, Promise<boolean>>();
  // Before Node's own listener, so a socket is counted before any request on it is parsed.
  app.server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    if (isExempt(address)) return;
    const scope = `addr:${address}`;
    const verdict = slots.take(scope, max).then((ok) => {
      if (!ok) socket.end(REFUSAL_RESPONSE, () => socket.destroy());
      else if (socket.destroyed) slots.give(scope);
      else socket.once('close', () => slots.give(scope));
      return ok;
    });
    verdicts.set(socket, verdict);
  });
  app.addHook('onRequest', async (req, reply) => {
    const verdict = verdicts.get(req.raw.socket);
    if (verdict === undefined || (await verdict)) return;
    reply.hijack();
    req.raw.socket.destroy();
  });
}
