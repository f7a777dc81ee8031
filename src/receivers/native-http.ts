import type { FastifyInstance } from 'fastify';
import { SpyglassError } from '../errors.ts';
import {
  acceptNativeBatch,
  NORMALIZE_SLICE_SPANS,
  type NativeIngest,
} from '../ingest/accept-native.ts';
import type { Config } from '../config/types.ts';
import type { LanedWriter } from '../ingest/laned-writer.ts';
import type { RateLimitWarnings } from '../ingest/rate-limit-warnings.ts';
import { SLICE_BYTES, tenantOf, type CpuSlices } from '../ingest/cpu-slices.ts';
import { warnWhenRateLimited } from './rate-limit-hook.ts';
import type { JsonParsePool } from './json-pool.ts';
import { useSlicedParsers } from './sliced-parsers.ts';

/** What the native receiver uses, and nothing else. */
export interface NativeReceiverDeps {
  config: Pick<Config, 'ingest'>;
  ingest: NativeIngest['ingest'];
  /** Refuses a project's large batch before it is parsed when its backlog is full. */
  writer: Pick<LanedWriter, 'admit'>;
  rateLimitWarnings: RateLimitWarnings;
  /** The app's CPU slices, shared by tenants in turn (src/ingest/cpu-slices.ts). */
  slices: CpuSlices;
}

/** POST /api/traces/spans: the native JSON batch (docs/ingest.md#native-spans). */
export async function registerNativeReceiver(
  app: FastifyInstance,
  s: NativeReceiverDeps,
  pool: JsonParsePool,
): Promise<void> {
  await app.register(async (scope) => {
    // A large body of a project whose backlog of spans is full would be refused (429) once
    // parsed; it is refused before it is read when its length is declared, else before it is
    // parsed (issue 25).
    const refuseLarge = (projectId: string | null, bytes: number) => {
      if (bytes > SLICE_BYTES && projectId !== null) s.writer.admit(projectId, 1);
    };
    scope.addHook('preParsing', async (req) => {
      refuseLarge(req.principal.projectId, Number(req.headers['content-length'] ?? 0) || 0);
    });
    useSlicedParsers(scope, s.slices, pool, [], (req, bytes) =>
      refuseLarge(req.principal.projectId, bytes),
    );
    scope.post(
      '/api/traces/spans',
      { config: { rateLimitKey: 'spans' }, onResponse: warnWhenRateLimited(s) },
      async (req, reply) => {
        if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
          throw new SpyglassError(
            'unsupported_media_type',
            'send a JSON array of spans with Content-Type: application/json',
          );
        }
        // Parsing the body was one piece of CPU work (in its slice); validating, pricing and
        // encoding it is the next, after any other tenant's waiting body.
        // A large body's validation is itself several pieces, each after any other tenant's
        // waiting body (issue 25: 10,000 spans were 50-150 ms in one piece).
        const tenant = tenantOf(req.principal, req.ip);
        const bytes = Number(req.headers['content-length'] ?? 0) || 0;
        const turn = s.slices.yieldToOthers(bytes, tenant);
        if (turn) await turn;
        const count = Array.isArray(req.body) ? Math.max(1, req.body.length) : 1;
        // A large batch of a project whose backlog is full is refused before it is validated: that
        // work (50-150 ms for 10,000 spans) would be spent for a 429 (issue 25).
        if (count > NORMALIZE_SLICE_SPANS && req.principal.projectId !== null)
          s.writer.admit(req.principal.projectId, count);
        const perSlice = Math.ceil((bytes * NORMALIZE_SLICE_SPANS) / count);
        const between = () => s.slices.yieldToOthers(perSlice, tenant);
        const { stored, duplicates } = await acceptNativeBatch(
          { maxBatchSpans: s.config.ingest.maxBatchSpans, ingest: s.ingest },
          req.principal,
          req.body,
          between,
        );
        return reply.status(202).send({ accepted: stored, duplicates });
      },
    );
  });
}
