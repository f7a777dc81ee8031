import type { FastifyInstance, FastifyRequest } from 'fastify';
import { enforce, type Access } from '../auth/access.ts';
import { readKey, type Authenticator } from '../auth/authenticate.ts';
import { cookieSessionRefusal } from '../auth/browser-origin.ts';
import { LOCAL_ADMIN, SIGNED_OUT } from '../auth/principal.ts';
import { sessionTokenFrom } from '../auth/ui-sessions.ts';
import { forbidden } from '../errors.ts';

/** A route names its access level in its config, or gets the default for its method: GET/HEAD read, anything else write. */
export function accessOf(method: string, access: Access | undefined): Access {
  return access ?? (method === 'GET' || method === 'HEAD' ? 'read' : 'write');
}

/** What the hook uses, and nothing else. */
export interface AuthHookDeps {
  auth: Authenticator;
}

/**
 * Authenticates every non-public request and enforces the route's access level (docs/auth.md). CORS
 * preflights are answered without a key: a browser never sends credentials or custom headers on
 * one, so requiring a key made every cross-origin request with `X-API-Key` impossible. A preflight
 * reads and changes nothing; the route's Origin check still applies to it, and the real request
 * that follows is authenticated as usual.
 */
export function installAuth(app: FastifyInstance, s: AuthHookDeps): void {
  app.addHook('onRequest', async (req) => {
    // Read once: fastify builds routeOptions anew on every read.
    const { config, url } = req.routeOptions;
    const access = accessOf(req.method, config.access);
    if (access === 'public' || !url || config.publicWhen?.(req) || isPreflight(req)) return;
    const sessionToken = config.sessionCookie ? sessionOf(req) : undefined;
    if (
      config.sessionCookie &&
      sessionToken === undefined &&
      !readKey(req.headers) &&
      req.headers['x-requested-with'] !== undefined
    ) {
      // The dashboard before sign-in: it may run the sign-in operations only (src/graphql/ui-auth.ts).
      req.principal = (await s.auth.authDisabled()) ? LOCAL_ADMIN : SIGNED_OUT;
      return;
    }
    req.principal = await s.auth.authenticate({
      headers: req.headers,
      remoteAddress: req.socket.remoteAddress ?? '',
      clientAddress: req.ip,
      ...(sessionToken ? { sessionToken } : {}),
    });
    enforce(req.principal, access);
  });
}

/**
 * The dashboard session token of a request to a route that accepts it (GraphQL), when no key is
 * presented. A cookie on a request a page elsewhere could have forged is refused outright (403).
 */
function sessionOf(req: FastifyRequest): string | undefined {
  if (readKey(req.headers)) return undefined;
  const token = sessionTokenFrom(req.headers.cookie);
  if (!token) return undefined;
  const refusal = cookieSessionRefusal(req.headers, { method: req.method });
  if (refusal) throw forbidden(`cross-site request refused: ${refusal}`);
  return token;
}

/** A CORS preflight: OPTIONS with the Origin and Access-Control-Request-Method a browser sends. */
function isPreflight(req: FastifyRequest): boolean {
  return (
    req.method === 'OPTIONS' &&
    req.headers.origin !== undefined &&
    req.headers['access-control-request-method'] !== undefined
  );
}
