import type { FastifyInstance } from 'fastify';
import { SpyglassError } from '../errors.ts';
import { acceptNativeBatch } from '../ingest/accept-native.ts';
import type { Services } from '../services.ts';
import { tenantOf, yieldToOthers } from '../ingest/cpu-slices.ts';
import { warnWhenRateLimited } from './rate-limit-hook.ts';
import { useSlicedParsers } from './sliced-parsers.ts';

/** POST /api/traces/spans: the native JSON batch (docs/ingest.md#native-spans). */
export async function registerNativeReceiver(app: FastifyInstance, s: Services): Promise<void> {
  await app.register(async (scope) => {
    useSlicedParsers(scope);
    scope.post('/api/traces/spans', { config: { rateLimitKey: 'spans' }, onResponse: warnWhenRateLimited(s) }, async (req, reply) => {
      if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
        throw new SpyglassError('unsupported_media_type', 'send a JSON array of spans with Content-Type: application/json');
      }
      // Parsing the body was one piece of CPU work (in its slice); validating, pricing and
      // encoding it is the next, after any other tenant's waiting body.
      const turn = yieldToOthers(Number(req.headers['content-length'] ?? 0) || 0, tenantOf(req.principal, req.ip));
      if (turn) await turn;
      const { stored, duplicates } = await acceptNativeBatch({ maxBatchSpans: s.config.ingest.maxBatchSpans, ingest: s.ingest }, req.principal, req.body);
      return reply.status(202).send({ accepted: stored, duplicates });
    });
  });
}
