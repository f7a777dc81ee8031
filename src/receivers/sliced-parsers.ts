import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ingestSlice, tenantOf } from '../ingest/cpu-slices.ts';

/**
 * Body parsers for the ingest routes of `scope`: the body is handed on in an ingest CPU slice
 * (src/ingest/cpu-slices.ts), so parsing it and the handler's work that follows do not run back
 * to back with a burst of other requests, and tenants take turns (authentication ran before
 * parsing). JSON keeps Fastify's own parser, prototype-poisoning checks included; protobuf bodies
 * stay buffers for the handler to decode. `refuseJson`, if it throws, answers with its error
 * instead of parsing the body.
 */
export function useSlicedParsers(
  scope: FastifyInstance,
  protobufTypes: string[] = [],
  refuseJson?: (req: FastifyRequest, bytes: number) => void,
): void {
  const parseJson = scope.getDefaultJsonParser('error', 'error');
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    try {
      refuseJson?.(req, body.length);
    } catch (err) {
      done(err as Error, undefined);
      return;
    }
    whenSliced(body.length, tenantOf(req.principal, req.ip), () =>
      parseJson(req, body as string, done),
    );
  });
  if (protobufTypes.length > 0) {
    scope.addContentTypeParser(protobufTypes, { parseAs: 'buffer' }, (req, body, done) =>
      whenSliced(body.length, tenantOf(req.principal, req.ip), () => done(null, body)),
    );
  }
}

function whenSliced(bytes: number, tenant: string, work: () => void): void {
  const wait = ingestSlice(bytes, tenant);
  if (wait) void wait.then(work);
  else work();
}
