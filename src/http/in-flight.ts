import type { FastifyInstance } from 'fastify';

export interface InFlight {
  /** The requests not yet answered (or whose client has not gone), oldest first: for the log. */
  list(): { method: string; url: string; ageMs: number }[];
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
  return {
    list: () =>
      [...open].map((e) => ({ method: e.method, url: e.url, ageMs: Date.now() - e.since })),
  };
}
