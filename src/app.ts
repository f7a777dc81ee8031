import { trackInFlight, type InFlight } from './rest/in-flight.ts';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { ANONYMOUS, type Principal } from './auth/principal.ts';
import type { Access } from './auth/access.ts';
import { accessOf, installAuth } from './rest/auth-hook.ts';
import { registerAuditRoutes } from './rest/audit-routes.ts';
import { registerCatalogRoutes } from './rest/catalog-routes.ts';
import { registerLiveRoutes } from './rest/live-routes.ts';
import { registerMetrics } from './rest/metrics-routes.ts';
import { registerSessionRoutes } from './rest/sessions-routes.ts';
import { registerKeyRoutes } from './rest/keys-routes.ts';
import { registerProjectRoutes } from './rest/projects-routes.ts';
import { installRateLimits, type LimitName } from './rest/rate-limit.ts';
import { addSecurityHeaders } from './rest/security-headers.ts';
import { refuseCrossSiteWrites } from './auth/browser-origin.ts';
import { guardParameters } from './rest/param-guard.ts';
import { capConnectionsPerAddress, serverTimeouts } from './rest/connection-limits.ts';
import { registerUserRoutes } from './rest/users-routes.ts';
import { acceptEmptyJsonBodies } from './rest/empty-json.ts';
import { JsonParsePool } from './receivers/json-pool.ts';
import { registerNativeReceiver } from './receivers/native-http.ts';
import { acceptCompressedBodies } from './receivers/decompress.ts';
import { registerOtlpHttpReceiver } from './receivers/otlp-http.ts';
import { registerGraphql } from './graphql/yoga.ts';
import { handleError } from './rest/errors.ts';
import { schemaErrorFormatter, validatorCompiler } from './rest/route-schema.ts';
import { registerProbes } from './rest/probes.ts';
import { routeGetsToReplica } from './rest/replica-reads.ts';
import { registerSettingsRoutes } from './rest/settings-routes.ts';
import { registerTracesRoutes } from './rest/traces-routes.ts';
import { registerHealthRoutes } from './rest/health-routes.ts';
import { registerSecurityRoutes } from './rest/security-routes.ts';
import { registerReliabilityRoutes } from './rest/reliability-routes.ts';
import { registerCostsRoutes } from './rest/costs-routes.ts';
import { registerSloRoutes } from './rest/slos-routes.ts';
import { registerAlertRoutes } from './rest/alerts-routes.ts';
import { registerPreventionRoutes } from './rest/prevention-routes.ts';
import { registerUiRoutes } from './rest/ui-routes.ts';
import type { Services } from './services.ts';

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
    /** Who may call the route; default by method (see auth-hook.ts). */
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

/** Builds the HTTP app over the services. Never listens: main.ts and tests decide that. */
export async function buildApp(s: Services): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: s.logger as FastifyBaseLogger,
    bodyLimit: s.config.ingest.maxBodyBytes,
    // One log line per request would dominate at ingest rates; errors are logged where handled.
    logController: new LogController({ disableRequestLogging: true }),
    // X-Forwarded-For counts only from trusted proxies (docs/auth.md#behind-a-proxy); req.ip is the client then.
    trustProxy: s.config.trustedProxyCidrs,
    return503OnClosing: true,
    // Path parameters carry agent names as long as ingest accepts (512 characters, percent-encoded
    // possibly three times longer); the routes check the decoded length themselves.
    routerOptions: { maxParamLength: 2048 },
    // Slow or idle clients cannot hold sockets: header, whole-request and keep-alive timeouts.
    ...serverTimeouts(s.config.http),
    // Route schemas (src/rest/route-schema.ts): every problem at once, in docs/api.md's 422 shape.
    schemaErrorFormatter,
  });
  // Every route's schemas compile here (query and path coerce, bodies do not), so Fastify's own
  // ajv instance is never built.
  app.setValidatorCompiler(validatorCompiler);
  capConnectionsPerAddress(
    app,
    s.config.http.maxConnectionsPerAddress,
    (a) => s.auth.isTrustedProxy(a),
    s.slots,
  );
  app.decorate('inFlight', trackInFlight(app));
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (req) => {
    req.principal = ANONYMOUS;
  });
  const routes: RouteEntry[] = [];
  app.decorate('routeList', routes);
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) {
      if (method !== 'HEAD')
        routes.push({ method, url: r.url, access: accessOf(method, r.config?.access) });
    }
  });
  // Only with a replica: otherwise every GET handler would run inside an AsyncLocalStorage scope for nothing.
  if (s.config.databaseReadUrl) routeGetsToReplica(app);
  app.setErrorHandler(handleError);
  addSecurityHeaders(app);
  registerMetrics(app, s);
  await installRateLimits(
    app,
    s.config.rateLimits,
    (a) => s.auth.isTrustedProxy(a),
    s.limiter,
    s.config.cluster.name,
  );
  refuseCrossSiteWrites(app, s.config.http.allowedOrigins);
  installAuth(app, s);
  guardParameters(app);
  acceptCompressedBodies(app);
  acceptEmptyJsonBodies(app);

  registerProbes(app, s);
  // Large JSON bodies of both receivers are parsed on these threads (src/receivers/json-pool.ts).
  const jsonPool = new JsonParsePool(undefined, (err) =>
    s.logger.error({ err }, 'JSON parse thread failed'),
  );
  app.addHook('onClose', () => jsonPool.close());
  await registerNativeReceiver(app, s, jsonPool);
  await registerOtlpHttpReceiver(app, s, jsonPool);
  registerTracesRoutes(app, s);
  registerSettingsRoutes(app, s);
  registerKeyRoutes(app, s);
  registerUserRoutes(app, s);
  registerProjectRoutes(app, s);
  registerAuditRoutes(app, s);
  registerSessionRoutes(app, s);
  registerCatalogRoutes(app, s);
  registerLiveRoutes(app, s);
  registerHealthRoutes(app, s);
  registerSecurityRoutes(app, s);
  registerReliabilityRoutes(app, s);
  registerCostsRoutes(app, s);
  registerSloRoutes(app, s);
  registerAlertRoutes(app, s);
  registerPreventionRoutes(app, s);
  registerGraphql(app, s);
  // The dashboard and its fallback for client routes; unknown API paths stay JSON 404s.
  await registerUiRoutes(app);
  return app;
}
