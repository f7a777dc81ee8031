import type { FastifyReply, FastifyRequest } from 'fastify';
import { whoIs } from '../ingest/rate-limit-warnings.ts';
import type { RateLimitWarnings } from '../ingest/rate-limit-warnings.ts';

/** Route-level onResponse for the ingest routes: a 429 there means dropped telemetry, so it is logged. */
export function warnWhenRateLimited(s: { rateLimitWarnings: RateLimitWarnings }) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (reply.statusCode !== 429) return;
    s.rateLimitWarnings.rateLimited(whoIs(req.headers, req.ip), {
      transport: 'http',
      route: req.routeOptions.url ?? req.url,
    });
  };
}
