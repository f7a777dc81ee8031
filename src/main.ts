import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import { pick } from './app-routes.ts';
import type { Config } from './config/types.ts';
import { admitGrpcExport, exportGrpc, peerAddress } from './receivers/otlp-grpc-admit.ts';
import { tenantOf } from './ingest/cpu-slices.ts';
import { createServices, type Services } from './services.ts';
import { startEmbeddedHealth } from './health/embedded.ts';
import { startSpanRetention } from './traces/retention.ts';
import { startScanRetention } from './security/retention.ts';
import { startAnomalyDetection } from './anomalies/background.ts';
import { startSloEvaluator } from './slos/evaluator.ts';
import { startAlertJobs } from './alerts/jobs.ts';
import type { Store } from './store/open-store.ts';
import { logConfigSource, openConfiguredStore } from './startup/store-start.ts';
import { startLater, startPeriodic } from './scale/jobs/periodic.ts';
import { startLeaderJobs } from './scale/jobs/leader-jobs.ts';
import { checkServePorts, PortError } from './startup/check-ports.ts';
import { shutdownSteps } from './startup/shutdown-steps.ts';
import { startReadWarmUp } from './startup/read-warm-up.ts';
import { startWriterWarmUp } from './startup/writer-warm-up.ts';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  httpUrl: string;
  grpcPort: number | null;
  /** Stops listening, commits every acknowledged span, closes the database. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /**
   * Set in a cluster worker: the primary already checked the ports (which workers share) and
   * applied the migrations once, so workers never race on them.
   */
  worker?: boolean;
  /**
   * The store, already opening: `spyglass serve` checks the ports, logs the config and starts
   * opening the database before it loads this module (src/cli/serve.ts).
   */
  store?: Promise<Store>;
}

/**
 * How long after listening the background passes that can wait begin: span retention's deletions
 * (its partitions are made at once), retention of health results, scans and alerts, anomaly
 * detection, SLO evaluation and the statistics keeper's first look. On the embedded database every
 * statement takes its turn on one connection, and their first passes (cold trigger functions and
 * catalog lookups) held the first requests, readiness's included, for a quarter of a second or
 * more (docs/benchmarks.md#start-up-third-round-2026-11-27-0600-0740-utc).
 */
const MAINTENANCE_AFTER_MS = 3_000;

type GrpcReceiver = Awaited<
  ReturnType<(typeof import('./receivers/otlp-grpc.ts'))['startOtlpGrpcServer']>
>;

/** Starts the whole service: store, services, HTTP and gRPC listeners. */
export async function startServer(
  config: Config,
  logger: Logger,
  opts: StartOptions = {},
): Promise<RunningServer> {
  // The OTLP/gRPC receiver's module and grpc-js (about 70 files) load while the database opens,
  // and not at all when the receiver is off
  // (docs/benchmarks.md#start-up-fourth-round-2026-11-27-0800-1000-utc).
  const grpcModule = config.grpcPort !== 0 ? import('./receivers/otlp-grpc.ts') : null;
  grpcModule?.catch(() => {}); // awaited below
  let opening = opts.store;
  if (!opening) {
    logConfigSource(config, logger);
    if (!opts.worker) await checkServePorts(config);
    opening = openConfiguredStore(config, logger, !opts.worker);
  }
  const store = await opening;
  logger.info(
    { storage: store.kind, dataDir: store.kind === 'pglite' ? config.dataDir : undefined },
    'storage ready',
  );
  const services = await createServices(config, store, logger);
  const app = await buildApp(services);
  let grpc: GrpcReceiver | null = null;
  try {
    await app.listen({ host: config.host, port: config.port });
    if (grpcModule) {
      const { startOtlpGrpcServer } = await grpcModule;
      // Each step gets only the services it declares, read when used (as the HTTP routes get theirs).
      const admitDeps = pick(services, 'config', 'limiter', 'rateLimitWarnings', 'auth');
      const exportDeps = pick(
        services,
        'config',
        'ingest',
        'metrics',
        'ignoredSpans',
        'rateLimitWarnings',
      );
      grpc = await startOtlpGrpcServer({
        host: config.host,
        port: config.grpcPort,
        maxMessageBytes: config.ingest.maxBodyBytes,
        admit: (meta) => admitGrpcExport(admitDeps, meta),
        onExport: (req, principal, meta) => exportGrpc(exportDeps, principal, req, meta),
        slices: services.slices,
        tenantOf: (principal, meta) => tenantOf(principal, peerAddress(meta.peer)),
        onInternalError: (err) => logger.error({ err }, 'OTLP/gRPC export failed'),
      });
    }
  } catch (err) {
    await app.close();
    await services.close();
    await store.close();
    // Taken between the check above and here (the database took a while to open).
    if (grpc === null && /No address added/.test((err as Error).message)) {
      throw new PortError([
        `OTLP/gRPC port ${config.host}:${config.grpcPort} was taken while the database opened; set SPYGLASS_GRPC_PORT to a free port (0 turns the gRPC receiver off)`,
      ]);
    }
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const httpUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ http: httpUrl, grpcPort: grpc?.port ?? null }, 'spyglass listening');
  await logAuthMode(services, logger);
  await logMonitored(services, logger);
  // Once per cluster: on this instance while it leads (always, without Redis).
  const leaderJobs = startLeaderJobs({
    config,
    db: store.db,
    logger,
    metrics: services.metrics,
    start: () => [
      // The health monitor checks at once, and span retention makes today's partitions at once.
      startEmbeddedHealth(services.health, logger, { retentionAfterMs: MAINTENANCE_AFTER_MS }),
      startSpanRetention(
        store.db,
        config.retention,
        logger,
        MAINTENANCE_AFTER_MS,
        services.lineage,
      ),
      startLater(MAINTENANCE_AFTER_MS, () => [
        startScanRetention(services.security, logger),
        startAnomalyDetection(services.anomalies, logger, config.anomalies.intervalSeconds),
        startSloEvaluator((signal) => services.slos.evaluateAll(undefined, signal), logger),
        startAlertJobs(services.alerts, logger),
      ]),
    ],
  });
  services.stats.start(MAINTENANCE_AFTER_MS);
  // Each pool connection's first reads of the spans table, paid here rather than by users.
  const readWarmUp = startReadWarmUp(store, logger, config.databaseWarmUp);
  // The writer's connections' first statements (the upsert prepared and planned), paid here
  // rather than by the first commits of a load.
  const writerWarmUp = startWriterWarmUp(store, logger, config.databaseWarmUp);
  // Another process may share the database: pick up its pricing changes within a minute (the
  // first load was createServices's).
  const priceReload = startPeriodic(
    () => services.costs.load(),
    60_000,
    (err) => logger.warn({ err }, 'model pricing reload failed'),
    60_000,
  );

  let stopping: Promise<void> | null = null;
  /** How long a stop lets in-flight requests finish (docs/ingest.md#durability-and-back-pressure). */
  const REQUEST_GRACE_MS = 20_000;
  const stop = () =>
    (stopping ??= (async () => {
      // Order matters: stop taking requests, let in-flight ones finish (they wait on their commit),
      // commit anything still queued, then close the database. Live streams never end by
      // themselves, so they are closed first. A step that takes long is named in the log.
      const steps = shutdownSteps(logger);
      services.live.close();
      services.liveClients.endAll('server shutting down');
      // Keep-alive clients would hold the server open for the keep-alive timeout: close each
      // connection as soon as its in-flight request is answered, and those that never sent one.
      const sweep = setInterval(() => {
        app.server.closeIdleConnections();
        app.inFlight.closeUnused();
      }, 50);
      // A request still open after the grace (longer than a commit's retries, shorter than a
      // cluster primary's wait for its workers) is cut: a client that holds one open, or a
      // handler that never answers, must not hold the stop. A cut request was never acknowledged.
      const cut = setTimeout(() => {
        logger.warn(
          { requests: app.inFlight.list() },
          `shutdown: cutting the connections of requests still open after ${REQUEST_GRACE_MS / 1000} s`,
        );
        app.server.closeAllConnections();
      }, REQUEST_GRACE_MS);
      try {
        await steps.run(
          'in-flight requests and gRPC calls',
          () => Promise.allSettled([app.close(), grpc?.close()]),
          () => app.inFlight.list(),
        );
        await steps.run('background jobs', () => leaderJobs.stop());
        await steps.run('read connections warm-up', () => readWarmUp.stop());
        await steps.run('writer connections warm-up', () => writerWarmUp);
        await steps.run('pricing reload', () => priceReload.stop());
        await steps.run('statistics refresh', () => services.stats.stop());
        await steps.run('commit of queued spans and deliveries', () => services.close());
        await steps.run('database close', () => store.close());
      } finally {
        clearTimeout(cut);
        clearInterval(sweep);
        steps.done();
      }
      logger.info('spyglass stopped');
    })());
  return { app, services, httpUrl, grpcPort: grpc?.port ?? null, stop };
}

async function logMonitored(s: Services, logger: Logger): Promise<void> {
  const targets = await s.health.targets(null);
  const fromConfig = targets.filter((t) => t.source === 'config').length;
  const counts = { servers: targets.length, fromConfig, fromCatalog: targets.length - fromConfig };
  if (!s.config.monitor.enabled) {
    logger.info(
      counts,
      `health monitor: off (monitor.enabled: false); ${targets.length} MCP server(s) configured, checked only on request`,
    );
  } else {
    logger.info(
      counts,
      `health monitor: ${targets.length} MCP server(s) monitored (${fromConfig} from the config file, ${counts.fromCatalog} from the catalog)${targets.length === 0 ? '; add servers: to spyglass.yaml' : ''}`,
    );
  }
}

async function logAuthMode(s: Services, logger: Logger): Promise<void> {
  if (await s.auth.authDisabled()) {
    logger.warn(
      'auth: DISABLED (listening on loopback and no API key exists); every caller is admin. Create a key with `spyglass api-key create` to turn it on.',
    );
  } else if (!(await s.keys.anyKeys())) {
    logger.warn(
      'auth: enabled, and no API key exists yet: every request will get 401. Create one with `spyglass api-key create --role admin`, or set SPYGLASS_API_KEYS.',
    );
  } else {
    logger.info('auth: enabled (API key required)');
  }
}
