import { trackInFlight } from './http/in-flight.ts';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { ANONYMOUS, type Principal } from './auth/principal.ts';
import { accessOf, installAuth, type AuthHookDeps } from './http/auth-hook.ts';
import { registerMetrics, type MetricsRoutesDeps } from './rest/metrics-routes.ts';
import { installRateLimits } from './http/rate-limit.ts';
import { addSecurityHeaders } from './http/security-headers.ts';
import { refuseCrossSiteWrites } from './auth/browser-origin.ts';
import { guardParameters } from './http/param-guard.ts';
import { capConnectionsPerAddress, serverTimeouts } from './http/connection-limits.ts';
import { acceptEmptyJsonBodies } from './http/empty-json.ts';
import { JsonParsePool } from './receivers/json-pool.ts';
import { acceptCompressedBodies } from './receivers/decompress.ts';
import { handleError } from './http/errors.ts';
import { countRequests } from './http/request-metrics.ts';
import { schemaErrorFormatter, validatorCompiler } from './http/route-schema.ts';
import { registerProbes, type ProbesDeps } from './rest/probes.ts';
import { routeGetsToReplica } from './http/replica-reads.ts';
import { registerUiRoutes } from './rest/ui-routes.ts';
import type { Logger } from 'pino';
import type { Config } from './config/types.ts';
import type { SharedSlots } from './scale/coord/slots.ts';
import type { Limiter } from './scale/limits/limiter.ts';
import type { RouteEntry } from './http/fastify-types.ts';
import { pick, registerRoutes, type RoutesDeps } from './app-routes.ts';

/** What the app's hooks use: what each hook module declares, and what buildApp reads itself. */
type PlumbingDeps = AuthHookDeps &
  MetricsRoutesDeps &
  ProbesDeps & {
    config: Pick<
      Config,
      'cluster' | 'databaseReadUrl' | 'http' | 'ingest' | 'rateLimits' | 'trustedProxyCidrs'
    >;
    logger: Logger;
    slots: SharedSlots;
    limiter: Limiter;
  };

/**
 * What the HTTP app needs: what its own hooks use and exactly what its route modules declare
 * (src/app-routes.ts). `createServices` (src/services.ts) gives all of it.
 */
export type AppDeps = PlumbingDeps & RoutesDeps;

/**
 * Builds the HTTP app over the services. Never listens: main.ts and tests decide that. Each module
 * is handed only what it declares it uses, so none can reach a service it has no business with.
 */
export async function buildApp(s: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: s.logger as FastifyBaseLogger,
    bodyLimit: s.config.ingest.maxBodyBytes,
    // One log line per request would dominate at ingest rates; errors are logged where handled.
    logController: new LogController({ disableRequestLogging: true }),
    // X-Forwarded-For counts only from trusted proxies (docs/auth.md#behind-a-proxy); req.ip is the client then.
    // The same CIDRs as authentication's, whose answers are kept per address (src/auth/authenticate.ts).
    trustProxy: (address: string) => s.auth.isTrustedProxy(address),
    return503OnClosing: true,
    // Path parameters carry agent names as long as ingest accepts (512 characters, percent-encoded
    // possibly three times longer); the routes check the decoded length themselves.
    routerOptions: { maxParamLength: 2048 },
    // Slow or idle clients cannot hold sockets: header, whole-request and keep-alive timeouts.
    ...serverTimeouts(s.config.http),
    // Route schemas (src/http/route-schema.ts): every problem at once, in docs/api.md's 422 shape.
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
  countRequests(app, s.metrics);
  registerMetrics(app, pick(s, 'config', 'metrics'));
  await installRateLimits(
    app,
    s.config.rateLimits,
    (a) => s.auth.isTrustedProxy(a),
    s.limiter,
    s.config.cluster.name,
  );
  refuseCrossSiteWrites(app, s.config.http.allowedOrigins);
  installAuth(app, pick(s, 'auth'));
  guardParameters(app);
  acceptCompressedBodies(app);
  acceptEmptyJsonBodies(app);

  registerProbes(app, pick(s, 'store'));
  // Large JSON bodies of both receivers are parsed on these threads (src/receivers/json-pool.ts).
  const jsonPool = new JsonParsePool(undefined, (err) =>
    s.logger.error({ err }, 'JSON parse thread failed'),
  );
  app.addHook('onClose', () => jsonPool.close());
  await registerRoutes(app, s, jsonPool);
  // The dashboard and its fallback for client routes; unknown API paths stay JSON 404s.
  await registerUiRoutes(app);
  return app;
}
