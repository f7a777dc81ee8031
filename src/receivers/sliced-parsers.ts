import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { tenantOf, type CpuSlices } from '../ingest/cpu-slices.ts';
import { assembleParts } from './json-parts.ts';
import { LARGE_JSON_BYTES, type JsonParsePool } from './json-pool.ts';

/**
 * Body parsers for the ingest routes of `scope`: the body is handed on in one of the app's ingest
 * CPU slices (`slices`, src/ingest/cpu-slices.ts), so parsing it and the handler's work that follows do not run back
 * to back with a burst of other requests, and tenants take turns (authentication ran before
 * parsing). JSON keeps Fastify's own parser, prototype-poisoning checks included; a JSON body over
 * LARGE_JSON_BYTES is parsed, with the same checks and the same 400, on a thread of `pool` and
 * comes back in parts, each one slice of work (src/receivers/json-parts.ts). Protobuf bodies stay
 * buffers for the handler to decode. `refuseJson`, if it throws, answers with its error instead
 * of parsing the body.
 */
export function useSlicedParsers(
  scope: FastifyInstance,
  slices: CpuSlices,
  pool: JsonParsePool,
  protobufTypes: string[] = [],
  refuseJson?: (req: FastifyRequest, bytes: number) => void,
): void {
  const parseJson = scope.getDefaultJsonParser('error', 'error');
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const bytes = (body as Buffer).length;
    try {
      refuseJson?.(req, bytes);
    } catch (err) {
      done(err as Error, undefined);
      return;
    }
    const tenant = tenantOf(req.principal, req.ip);
    if (bytes <= LARGE_JSON_BYTES) {
      whenSliced(slices, bytes, tenant, () =>
        parseJson(req, (body as Buffer).toString('utf8'), done),
      );
      return;
    }
    pool.parse(body as Buffer, tenant).then(
      (parsed) => {
        if (parsed.kind === 'invalid') done(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY());
        else if (parsed.kind === 'fallback')
          whenSliced(slices, bytes, tenant, () => parseJson(req, parsed.text, done));
        else
          assembleParts(parsed, (n) => slices.ingestSlice(n, tenant)).then(
            (value) => done(null, value),
            (err: Error) => done(err, undefined),
          );
      },
      (err: Error) => done(err, undefined),
    );
  });
  if (protobufTypes.length > 0) {
    scope.addContentTypeParser(protobufTypes, { parseAs: 'buffer' }, (req, body, done) =>
      whenSliced(slices, body.length, tenantOf(req.principal, req.ip), () => done(null, body)),
    );
  }
}

function whenSliced(slices: CpuSlices, bytes: number, tenant: string, work: () => void): void {
  const wait = slices.ingestSlice(bytes, tenant);
  if (wait) void wait.then(work);
  else work();
}
