import type { FastifyInstance } from 'fastify';
import { parseAnomalyFilter } from '../anomalies/filter.ts';
import { toAnomalyJson } from '../model/anomaly.ts';
import { scopeProject } from '../auth/principal.ts';
import type { Services } from '../services.ts';

type Query = Record<string, string | undefined>;

/**
 * docs/anomalies.md#rest reliability: the tools currently anomalous, as the background detector last stored
 * them. Any authenticated role; scoped to the caller's project (or project_id for a global key).
 */
export function registerReliabilityRoutes(app: FastifyInstance, s: Services): void {
  app.get('/api/reliability/anomalies', async (req) => {
    const q = req.query as Query;
    const filter = parseAnomalyFilter(
      { serverName: q.server_name, severity: q.severity, metric: q.metric },
      'query',
      {
        serverName: 'server_name',
        severity: 'severity',
        metric: 'metric',
      },
    );
    return (await s.anomalies.list(scopeProject(req.principal, q.project_id), filter)).map(
      toAnomalyJson,
    );
  });
}
