import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

export interface InFlight {
  /** The requests not yet answered (or whose client has not gone), oldest first: for the log. */
  list(): { method: string; url: string; ageMs: number }[];
  /**
   * Closes the connections on which no request has arrived yet. A stop closes idle keep-alive
   * connections with `closeIdleConnections()`, but Node counts a connection that never sent a
   * request as active, so a client that connects early (a pool warming a socket) or never speaks
   * would hold the stop until the request grace cuts every connection.
   */
  closeUnused(): void;
}

/**
 * Tracks the requests the server is still answering, so a shutdown that waits on them can say
 * which (src/startup/shutdown-steps.ts). A request leaves when its response closes, answered or
 * aborted. Query strings are left out of the list (they may carry secrets).
 */
export function trackInFlight(app: FastifyInstance): InFlight {
  const open = new Set<{ method: string; url: string; since: number }>();
  app.addHook('onRequest', async (req, reply) => {
    const entry = { method: req.method, url: req.url.split('?')[0] ?? '', since: Date.now() };
    open.add(entry);
    reply.raw.once('close', () => open.delete(entry));
  });
  // A WebSocket's upgrade counts as its first request: the live streams close those themselves.
  const unused = new Set<Socket>();
  const used = (req: { socket: Socket }) => unused.delete(req.socket);
  app.server.on('connection', (socket: Socket) => {
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  app.server.on('request', used);
  app.server.on('upgrade', used);
  return {
    list: () =>
      [...open].map((e) => ({ method: e.method, url: e.url, ageMs: Date.now() - e.since })),
    closeUnused: () => {
      for (const socket of unused) socket.destroy();
    },
  };
}
