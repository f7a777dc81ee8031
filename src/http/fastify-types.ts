import type { Access } from '../auth/access.ts';
import type { Principal } from '../auth/principal.ts';
import type { InFlight } from './in-flight.ts';
import type { LimitName } from './rate-limit.ts';

// What every route module and hook of the app may rely on: Fastify's own types, extended once here.
declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyInstance {
    /** Every route with its access level, for docs and the auth matrix test. */
    routeList: RouteEntry[];
    /** Requests still being answered (named by a shutdown that waits on them). */
    inFlight: InFlight;
  }
  interface FastifyContextConfig {
    /** Who may call the route; default by method (see src/http/auth-hook.ts). */
    access?: Access;
    /** Which limit of docs/auth.md#rate-limits applies; default `default`. */
    rateLimitKey?: LimitName;
    /** Requests of the route that need no key although its access is not public (the GraphiQL page). */
    publicWhen?: (req: FastifyRequest) => boolean;
    /** The route accepts the dashboard's session cookie (docs/ui.md#auth): GraphQL only. */
    sessionCookie?: boolean;
  }
}

export interface RouteEntry {
  method: string;
  url: string;
  access: Access;
}
