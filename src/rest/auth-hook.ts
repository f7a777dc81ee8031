import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.ts';
import { forbidden } from '../errors.ts';
import type { Services } from '../services.ts';

/**
 * Route access levels. Every route either names one in its config or gets the default for its
 * method: GET/HEAD read, anything else write. Viewers may read; writes need the admin role.
 */
export type Access = 'public' | 'read' | 'write' | 'admin' | 'global-admin';

export function accessOf(method: string, access: Access | undefined): Access {
  return access ?? (method === 'GET' || method === 'HEAD' ? 'read' : 'write');
}

/**
 * Authenticates every non-public request and enforces the route's access level (spec §5). CORS
 * preflights are answered without a key: a browser never sends credentials or custom headers on
 * one, so requiring a key made every cross-origin request with `X-API-Key` impossible. A preflight
 * reads and changes nothing; the route's Origin check still applies to it, and the real request
 * that follows is authenticated as usual.
 */
export function installAuth(app: FastifyInstance, s: Services): void {
  app.addHook('onRequest', async (req) => {
    const access = accessOf(req.method, req.routeOptions.config.access);
    if (access === 'public' || !req.routeOptions.url || req.routeOptions.config.publicWhen?.(req) || isPreflight(req)) return;
    req.principal = await s.auth.authenticate({ headers: req.headers, remoteAddress: req.socket.remoteAddress ?? '', clientAddress: req.ip });
    enforce(req.principal, access);
  });
}

/** A CORS preflight: OPTIONS with the Origin and Access-Control-Request-Method a browser sends. */
function isPreflight(req: FastifyRequest): boolean {
  return req.method === 'OPTIONS' && req.headers.origin !== undefined && req.headers['access-control-request-method'] !== undefined;
}

export function enforce(p: Principal, access: Access): void {
  if (access === 'read' || access === 'public') return;
  if (p.role !== 'admin') throw forbidden(access === 'write' ? 'the viewer role is read-only' : 'this route needs the admin role');
  if (access === 'global-admin' && p.projectId !== null) throw forbidden('this route needs a key that is not bound to a project');
}
