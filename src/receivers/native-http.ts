import type { FastifyInstance } from 'fastify';
import { forbidden, SpyglassError } from '../errors.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import { normalizeNativeBatch } from '../normalize/native.ts';
import type { Services } from '../services.ts';
import { tenantOf, yieldToOthers } from '../ingest/cpu-slices.ts';
import { warnWhenRateLimited } from './rate-limit-hook.ts';
import { useSlicedParsers } from './sliced-parsers.ts';

/** POST /api/traces/spans: the native JSON batch (spec §2.1, decisions §3). */
export async function registerNativeReceiver(app: FastifyInstance, s: Services): Promise<void> {
  await app.register(async (scope) => {
    useSlicedParsers(scope);
    scope.post('/api/traces/spans', { config: { rateLimitKey: 'spans' }, onResponse: warnWhenRateLimited(s) }, async (req, reply) => {
      if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
        throw new SpyglassError('unsupported_media_type', 'send a JSON array of spans with Content-Type: application/json');
      }
      const bound = req.principal.projectId;
      // Parsing the body was one piece of CPU work (in its slice); validating, pricing and
      // encoding it is the next, after any other tenant's waiting body.
      const turn = yieldToOthers(Number(req.headers['content-length'] ?? 0) || 0, tenantOf(req.principal, req.ip));
      if (turn) await turn;
      const spans = normalizeNativeBatch(req.body, bound ?? DEFAULT_PROJECT, s.config.ingest.maxBatchSpans);
      if (bound !== null) {
        const other = spans.findIndex((sp) => sp.projectId !== bound);
        if (other >= 0) throw forbidden(`span ${other} names project ${spans[other]?.projectId}; this key is bound to project ${bound}`);
      }
      const { stored, duplicates } = await s.ingest(spans);
      return reply.status(202).send({ accepted: stored, duplicates });
    });
  });
}
