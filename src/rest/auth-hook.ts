import type { FastifyInstance, FastifyRequest } from 'fastify';
import { enforce, type Access } from '../auth/access.ts';
import type { Services } from '../services.ts';

/** A route names its access level in its config, or gets the default for its method: GET/HEAD read, anything else write. */
export function accessOf(method: string, access: Access | undefined): Access {
  return access ?? (method === 'GET' || method === 'HEAD' ? 'read' : 'write');
}

/**
 * Authenticates every non-public request and enforces the route's access level (docs/auth.md). CORS
 * preflights are answered without a key: a browser never sends credentials or custom headers on
 * one, so requiring a key made every cross-origin request with `X-API-Key` impossible. A preflight
 * reads and changes nothing; the route's Origin check still applies to it, and the real request
 * that follows is authenticated as usual.
 */
export function installAuth(app: FastifyInstance, s: Services): void {
  app.addHook('onRequest', async (req) => {
    const access = accessOf(req.method, req.routeOptions.config.access);
    if (
      access === 'public' ||
      !req.routeOptions.url ||
      req.routeOptions.config.publicWhen?.(req) ||
      isPreflight(req)
    )
      return;
    req.principal = await s.auth.authenticate({
      headers: req.headers,
      remoteAddress: req.socket.remoteAddress ?? '',
      clientAddress: req.ip,
    });
    enforce(req.principal, access);
  });
}

/** A CORS preflight: OPTIONS with the Origin and Access-Control-Request-Method a browser sends. */
function isPreflight(req: FastifyRequest): boolean {
  return (
    req.method === 'OPTIONS' &&
    req.headers.origin !== undefined &&
    req.headers['access-control-request-method'] !== undefined
  );
}
