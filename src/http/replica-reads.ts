import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import { readsFromReplica } from '../store/read-routing.ts';

/**
 * GET routes whose handler must stay on the primary: the live stream lives for hours and whatever
 * it starts would inherit the replica; readiness pings both pools itself.
 */
const PRIMARY_GETS = [
  /^\/api\/live\//,
  /^\/api\/readiness$/,
  /^\/api\/liveness$/,
  /^\/api\/status$/,
];

/**
 * Runs the handler of every other GET route inside readsFromReplica, so its queries go to the
 * read pool (installed only when SPYGLASS_DATABASE_READ_URL is set). Only the
 * handler: auth and the other hooks (which write, e.g. a key's last use) run on the primary.
 * Must be installed before the routes are registered.
 */
export function routeGetsToReplica(app: FastifyInstance): void {
  app.addHook('onRoute', (r) => {
    const methods = [r.method].flat();
    if (
      !methods.every((m) => m === 'GET' || m === 'HEAD') ||
      PRIMARY_GETS.some((p) => p.test(r.url))
    )
      return;
    const handler = r.handler as RouteHandlerMethod;
    r.handler = function (this: FastifyInstance, req, reply) {
      return readsFromReplica(() => handler.call(this, req, reply));
    };
  });
}
