import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import type { Config } from './config/types.ts';
import { exportOtlp } from './receivers/otlp-export.ts';
import { startOtlpGrpcServer } from './receivers/otlp-grpc.ts';
import { LOCAL_ADMIN } from './auth/principal.ts';
import { createServices, type Services } from './services.ts';
import { openStore } from './store/open-store.ts';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  httpUrl: string;
  grpcPort: number | null;
  /** Stops listening, commits every acknowledged span, closes the database. */
  stop(): Promise<void>;
}

/** Starts the whole service: store, services, HTTP and gRPC listeners. */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  logger.info({ storage: store.kind, dataDir: store.kind === 'pglite' ? config.dataDir : undefined }, 'storage ready');
  const services = await createServices(config, store, logger);
  const app = await buildApp(services);
  let grpc: Awaited<ReturnType<typeof startOtlpGrpcServer>> | null = null;
  try {
    await app.listen({ host: config.host, port: config.port });
    if (config.grpcPort !== 0) {
      grpc = await startOtlpGrpcServer({
        host: config.host,
        port: config.grpcPort,
        maxMessageBytes: config.ingest.maxBodyBytes,
        onExport: (req) => exportOtlp(services, LOCAL_ADMIN, req),
      });
    }
  } catch (err) {
    await app.close();
    await services.close();
    await store.close();
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const httpUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ http: httpUrl, grpcPort: grpc?.port ?? null }, 'spyglass listening');

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      // Order matters: stop taking requests, let in-flight ones finish (they wait on their commit),
      // commit anything still queued, then close the database.
      await Promise.allSettled([app.close(), grpc?.close()]);
      await services.close();
      await store.close();
      logger.info('spyglass stopped');
    })());
  return { app, services, httpUrl, grpcPort: grpc?.port ?? null, stop };
}
