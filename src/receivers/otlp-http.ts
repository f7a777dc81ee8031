import type { FastifyInstance, FastifyReply } from 'fastify';
import { SpyglassError } from '../errors.ts';
import type { RateLimitWarnings } from '../ingest/rate-limit-warnings.ts';
import type { CpuSlices } from '../ingest/cpu-slices.ts';
import { exportOtlp, type OtlpExportDeps } from './otlp-export.ts';
import { decodeOtlpJson } from './otlp-json.ts';
import { decodeOtlpProtobuf, encodeExportResponse } from './otlp-protobuf.ts';
import type { ExportOutcome } from '../model/otlp.ts';
import { warnWhenRateLimited } from './rate-limit-hook.ts';
import type { JsonParsePool } from './json-pool.ts';
import { useSlicedParsers } from './sliced-parsers.ts';

const PROTOBUF_TYPES = ['application/x-protobuf', 'application/protobuf'];

/** What the OTLP/HTTP receiver uses: the export's services and the 429 warnings. */
export interface OtlpHttpReceiverDeps extends OtlpExportDeps {
  rateLimitWarnings: RateLimitWarnings;
  /** The app's CPU slices, shared by tenants in turn (src/ingest/cpu-slices.ts). */
  slices: CpuSlices;
}

/** OTLP/HTTP at the spec's path and the standard one; JSON or protobuf in, same encoding out. */
export async function registerOtlpHttpReceiver(
  app: FastifyInstance,
  s: OtlpHttpReceiverDeps,
  pool: JsonParsePool,
): Promise<void> {
  await app.register(async (scope) => {
    useSlicedParsers(scope, s.slices, pool, PROTOBUF_TYPES);
    for (const path of ['/api/traces/otlp', '/v1/traces']) {
      scope.post(
        path,
        { config: { rateLimitKey: 'otlp' }, onResponse: warnWhenRateLimited(s) },
        async (req, reply) => {
          const type =
            String(req.headers['content-type'] ?? '')
              .split(';')[0]
              ?.trim()
              .toLowerCase() ?? '';
          const isProtobuf = PROTOBUF_TYPES.includes(type);
          if (!isProtobuf && type !== 'application/json') {
            throw new SpyglassError(
              'unsupported_media_type',
              'OTLP/HTTP takes application/json or application/x-protobuf',
            );
          }
          // Fastify types a body by route, not by content type: the protobuf parser above
          // (useSlicedParsers, `parseAs: 'buffer'`) hands on a Buffer, JSON a parsed value.
          const decoded = isProtobuf
            ? decodeOtlpProtobuf(req.body as Buffer)
            : decodeOtlpJson(req.body);
          const outcome = await exportOtlp(s, req.principal, decoded);
          return sendOutcome(reply, outcome, isProtobuf);
        },
      );
    }
  });
}

function sendOutcome(reply: FastifyReply, o: ExportOutcome, protobuf: boolean) {
  if (protobuf)
    return reply
      .status(200)
      .type('application/x-protobuf')
      .send(Buffer.from(encodeExportResponse(o)));
  // rejectedSpans 0 with a message is OTLP's warning form (spans not selected).
  const body =
    o.rejectedSpans > 0 || o.errorMessage !== ''
      ? { partialSuccess: { rejectedSpans: String(o.rejectedSpans), errorMessage: o.errorMessage } }
      : {};
  return reply.status(200).type('application/json').send(body);
}
