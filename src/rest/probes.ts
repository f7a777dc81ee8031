import type { FastifyInstance } from 'fastify';
import { databaseReason } from '../store/store-error.ts';
import type { Store } from '../store/open-store.ts';

/** What the probes use: readiness pings the store. */
export interface ProbesDeps {
  store: Pick<Store, 'ping'>;
}

/**
 * Liveness (no I/O), readiness (storage answers), and the deprecated /api/status. Orchestrators
 * poll these, so they are the only routes outside the rate limits (no limiter I/O either).
 */
export function registerProbes(app: FastifyInstance, s: ProbesDeps): void {
  const probe = { config: { access: 'public' as const, rateLimit: false as const } };
  app.get('/api/liveness', probe, async () => ({ status: 'ok' }));
  app.get('/api/status', probe, async (_req, reply) => {
    void reply
      .header('Deprecation', 'true')
      .header('Link', '</api/liveness>; rel="successor-version"');
    return { status: 'ok', deprecated: true, use: '/api/liveness' };
  });
  app.get('/api/readiness', probe, async (req, reply) => {
    try {
      await s.store.ping(2000);
      return { status: 'ready' };
    } catch (err) {
      // The driver's reason (refused, terminated, timed out), not drizzle's statement text.
      req.log.warn({ err: databaseReason(err) }, 'readiness: storage unreachable');
      return reply.status(503).send({ status: 'unavailable', detail: 'storage unreachable' });
    }
  });
}
