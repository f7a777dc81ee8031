import type { FastifyInstance } from 'fastify';
import { Type as T } from 'typebox';
import { parseAnomalyFilter } from '../anomalies/filter.ts';
import { toAnomalyJson } from '../model/anomaly.ts';
import type { AnomalyDetector } from '../anomalies/detector.ts';
import { typed } from '../http/route-schema.ts';

// severity and metric are checked by parseAnomalyFilter, whose 422 names the allowed values.
const Query = T.Object({
  project_id: T.Optional(T.String()),
  server_name: T.Optional(T.String()),
  severity: T.Optional(T.String()),
  metric: T.Optional(T.String()),
});

/** The services these routes use, and nothing else. */
export interface ReliabilityRoutesDeps {
  anomalies: AnomalyDetector;
}

/**
 * docs/anomalies.md#rest reliability: the tools currently anomalous, as the background detector last stored
 * them. Any authenticated role; scoped to the caller's project (or project_id for a global key).
 */
export function registerReliabilityRoutes(app: FastifyInstance, s: ReliabilityRoutesDeps): void {
  typed(app).get('/api/reliability/anomalies', { schema: { querystring: Query } }, async (req) => {
    const q = req.query;
    const filter = parseAnomalyFilter(
      { serverName: q.server_name, severity: q.severity, metric: q.metric },
      'query',
      { serverName: 'server_name', severity: 'severity', metric: 'metric' },
    );
    return (await s.anomalies.list(req.principal, { ...filter, projectId: q.project_id })).map(
      toAnomalyJson,
    );
  });
}
