import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { LOCAL_ADMIN, type Principal } from './auth/principal.ts';
import { registerNativeReceiver } from './receivers/native-http.ts';
import { acceptCompressedBodies } from './receivers/decompress.ts';
import { registerOtlpHttpReceiver } from './receivers/otlp-http.ts';
import { handleError } from './rest/errors.ts';
import { registerProbes } from './rest/probes.ts';
import { registerSettingsRoutes } from './rest/settings-routes.ts';
import { registerTracesRoutes } from './rest/traces-routes.ts';
import type { Services } from './services.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    /** No authentication (probes). */
    public?: boolean;
    adminOnly?: boolean;
    rateLimitKey?: string;
  }
}

/** Builds the HTTP app over the services. Never listens: main.ts and tests decide that. */
export async function buildApp(s: Services): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: s.logger as FastifyBaseLogger,
    bodyLimit: s.config.ingest.maxBodyBytes,
    disableRequestLogging: true,
    trustProxy: false,
    return503OnClosing: true,
  });
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (req) => {
    req.principal = LOCAL_ADMIN;
  });
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((req, reply) => void reply.status(404).send({ detail: `no route ${req.method} ${req.url.split('?')[0]}` }));
  acceptCompressedBodies(app);

  registerProbes(app, s);
  registerNativeReceiver(app, s);
  await registerOtlpHttpReceiver(app, s);
  registerTracesRoutes(app, s);
  registerSettingsRoutes(app, s);
  return app;
}
