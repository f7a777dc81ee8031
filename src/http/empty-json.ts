import type { FastifyInstance } from 'fastify';

/**
 * JSON bodies as Fastify parses them, except that an empty body is no body: clients (LangSight's
 * among them) send `Content-Type: application/json` on every DELETE and on bodiless POSTs such as
 * /api/health/check, and Fastify's own parser answers those with 400 "Body cannot be empty".
 * A body of only whitespace is still invalid JSON (400), as before.
 */
export function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '') done(null, undefined);
    else void parseJson(req, body as string, done);
  });
}
