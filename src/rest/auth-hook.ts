import type { FastifyInstance } from 'fastify';
import { enforce, type Access } from '../auth/access.ts';
import type { Services } from '../services.ts';

/** A route names its access level in its config, or gets the default for its method: GET/HEAD read, anything else write. */
export function accessOf(method: string, access: Access | undefined): Access {
  return access ?? (method === 'GET' || method === 'HEAD' ? 'read' : 'write');
}

/** Authenticates every non-public request and enforces the route's access level (spec §5). */
export function installAuth(app: FastifyInstance, s: Services): void {
  app.addHook('onRequest', async (req) => {
    const access = accessOf(req.method, req.routeOptions.config.access);
    if (access === 'public' || !req.routeOptions.url || req.routeOptions.config.publicWhen?.(req)) return;
    req.principal = await s.auth.authenticate({ headers: req.headers, remoteAddress: req.socket.remoteAddress ?? '', clientAddress: req.ip });
    enforce(req.principal, access);
  });
}

