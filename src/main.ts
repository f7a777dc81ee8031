import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import type { Config } from './config/types.ts';
import { exportOtlp } from './receivers/otlp-export.ts';
import { startOtlpGrpcServer } from './receivers/otlp-grpc.ts';
import { enforce } from './rest/auth-hook.ts';
import { createServices, type Services } from './services.ts';
import { startEmbeddedHealth } from './health/embedded.ts';
import { startSpanRetention } from './traces/retention.ts';
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
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, onWarning: (msg) => logger.warn(msg) });
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
        onExport: async (req, meta) => {
          const principal = await services.auth.authenticate({ headers: meta.metadata, remoteAddress: peerAddress(meta.peer) });
          enforce(principal, 'write');
          return exportOtlp(services, principal, req);
        },
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
  await logAuthMode(services, logger);
  const health = startEmbeddedHealth(services.health, logger);
  const retention = startSpanRetention(store.db, config.retention.spansDays, logger);
  services.stats.start();

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      // Order matters: stop taking requests, let in-flight ones finish (they wait on their commit),
      // commit anything still queued, then close the database. Live streams never end by
      // themselves, so they are closed first.
      services.live.close();
      // Keep-alive clients would hold the server open for the keep-alive timeout: close each
      // connection as soon as its in-flight request is answered.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
      await Promise.allSettled([app.close(), grpc?.close()]);
      clearInterval(sweep);
      await health.stop();
      await retention.stop();
      await services.stats.stop();
      await services.close();
      await store.close();
      logger.info('spyglass stopped');
    })());
  return { app, services, httpUrl, grpcPort: grpc?.port ?? null, stop };
}

/** grpc-js peers look like `ipv4:127.0.0.1:5000`, `ipv6:[::1]:5000` or `127.0.0.1:5000`. */
function peerAddress(peer: string): string {
  const bare = peer.replace(/^ipv[46]:/, '');
  const v6 = /^\[([^\]]+)\]/.exec(bare);
  if (v6) return v6[1] as string;
  return bare.replace(/:\d+$/, '');
}

async function logAuthMode(s: Services, logger: Logger): Promise<void> {
  if (await s.auth.authDisabled()) {
    logger.warn('auth: DISABLED (listening on loopback and no API key exists); every caller is admin. Create a key with `spyglass api-key create` to turn it on.');
  } else if (!(await s.keys.anyKeys())) {
    logger.warn('auth: enabled, and no API key exists yet: every request will get 401. Create one with `spyglass api-key create --role admin`, or set SPYGLASS_API_KEYS.');
  } else {
    logger.info('auth: enabled (API key required)');
  }
}
