import type { FastifyInstance } from 'fastify';
import { normalisePath, type Metrics } from '../metrics/metrics.ts';

/** Scraped and polled constantly: counting them would drown the API's own traffic. */
const UNINSTRUMENTED = new Set(['/metrics', '/api/liveness', '/api/readiness']);

/** Counts every answered request and its duration by method, route and status (GET /metrics reports them). */
export function countRequests(
  app: FastifyInstance,
  m: Pick<Metrics, 'httpRequests' | 'httpDuration'>,
): void {
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url;
    if (route && UNINSTRUMENTED.has(route)) return;
    // Unmatched paths share one label: raw 404 URLs would let any client grow the series without bound.
    const path = route ? normalisePath(route, req.url) : '{unmatched}';
    m.httpRequests.inc({ method: req.method, path, status: String(reply.statusCode) });
    m.httpDuration.observe({ method: req.method, path }, reply.elapsedTime / 1000);
  });
}
