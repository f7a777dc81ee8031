import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/types.ts';
import type { Metrics } from '../metrics/metrics.ts';

/** What GET /metrics uses, and nothing else. */
export interface MetricsRoutesDeps {
  config: Pick<Config, 'metricsToken'>;
  metrics: Pick<Metrics, 'registry'>;
}

/**
 * GET /metrics (docs/api.md): needs `Authorization: Bearer <SPYGLASS_METRICS_TOKEN>`;
 * without a configured token the endpoint does not exist (404, empty body). The request counters
 * it reports are kept by src/http/request-metrics.ts.
 */
export function registerMetrics(app: FastifyInstance, s: MetricsRoutesDeps): void {
  const m = s.metrics;
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
