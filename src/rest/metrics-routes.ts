import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { normalisePath } from '../metrics/metrics.ts';
import type { Config } from '../config/types.ts';
import type { Metrics } from '../metrics/metrics.ts';

const UNINSTRUMENTED = new Set(['/metrics', '/api/liveness', '/api/readiness']);

/** What the request metrics and GET /metrics use, and nothing else. */
export interface MetricsRoutesDeps {
  config: Pick<Config, 'metricsToken'>;
  metrics: Metrics;
}

/**
 * GET /metrics (docs/api.md): needs `Authorization: Bearer <SPYGLASS_METRICS_TOKEN>`;
 * without a configured token the endpoint does not exist (404, empty body).
 */
export function registerMetrics(app: FastifyInstance, s: MetricsRoutesDeps): void {
  const m = s.metrics;
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url;
    if (route && UNINSTRUMENTED.has(route)) return;
    // Unmatched paths share one label: raw 404 URLs would let any client grow the series without bound.
    const path = route ? normalisePath(route, req.url) : '{unmatched}';
    m.httpRequests.inc({ method: req.method, path, status: String(reply.statusCode) });
    m.httpDuration.observe({ method: req.method, path }, reply.elapsedTime / 1000);
  });

  app.get('/metrics', { config: { access: 'public' } }, async (req, reply) => {
    const token = s.config.metricsToken;
    if (!token) return reply.status(404).send();
    const presented = /^Bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
    if (!sameSecret(presented, token))
      return reply
        .status(401)
        .send({ detail: 'metrics need Authorization: Bearer <SPYGLASS_METRICS_TOKEN>' });
    return reply.type(m.registry.contentType).send(await m.registry.metrics());
  });
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
