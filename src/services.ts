import type { Logger } from 'pino';
import { AlertService } from './alerts/alert-service.ts';
import { attachProducers, type AlertProducers } from './alerts/producers/attach.ts';
import { watchSecurityScans } from './alerts/security-alerts.ts';
import { AuditLog } from './audit/audit-log.ts';
import { Authenticator } from './auth/authenticate.ts';
import { KeyAdmin } from './auth/key-admin.ts';
import { KeyService } from './auth/key-service.ts';
import { CatalogService } from './catalog/catalog-service.ts';
import { CostService } from './costs/cost-service.ts';
import { Registrar } from './catalog/registrar.ts';
import { ProjectsService } from './projects/projects-service.ts';
import { UiSessions } from './auth/ui-sessions.ts';
import { UsersService } from './users/users-service.ts';
import type { Config } from './config/types.ts';
import { ingestSpans, type IngestDeps, type IngestResult } from './ingest/ingest-service.ts';
import { KnownProjects } from './ingest/known-projects.ts';
import { IgnoredSpansLog } from './ingest/ignored-spans-log.ts';
import { RateLimitWarnings } from './ingest/rate-limit-warnings.ts';
import { LanedWriter } from './ingest/laned-writer.ts';
import { EventBus } from './live/bus.ts';
import { connectRedis } from './scale/coord/redis.ts';
import { SharedSlots } from './scale/coord/slots.ts';
import { createOutbound } from './net/guarded-fetch.ts';
import { Limiter } from './scale/limits/limiter.ts';
import { DEFAULT_SSE, SseHub } from './live/sse-hub.ts';
import { DEFAULT_LIVE_LIMITS, LiveClients } from './live/live-clients.ts';
import { DeliveryBudget } from './live/delivery-share.ts';
import { CpuSlices } from './ingest/cpu-slices.ts';
import { endRevokedStreams } from './live/revocation.ts';
import { Metrics } from './metrics/metrics.ts';
import { HealthService } from './health/health-service.ts';
import { ObservedToolsService } from './health/observed-tools.ts';
import { ServerToolsService } from './health/server-tools.ts';
import { ScoringService } from './scoring/scoring-service.ts';
import { AnomalyDetector } from './anomalies/detector.ts';
import { buildChecks } from './security/registry.ts';
import { ScanService } from './security/scan-service.ts';
import type { Span } from './model/span.ts';
import { SettingsService } from './settings/settings-service.ts';
import { SloService } from './slos/slo-service.ts';
import { PreventionService } from './prevention/config-service.ts';
import { SessionsService } from './sessions/sessions-service.ts';
import { SpansService } from './traces/spans-service.ts';
import type { Store } from './store/open-store.ts';
import { findProject } from './store/projects-repo.ts';
import { encodeSpans, insertSpans } from './store/spans-repo.ts';
import { StatsKeeper } from './store/stats-keeper.ts';
import { startClusterSync, type ClusterSync } from './scale/coord/cluster-sync.ts';

/** Everything the adapters (REST, GraphQL, gRPC, CLI) call. Built once per app (a process runs one; tests build several). */
export interface Services {
  config: Config;
  store: Store;
  logger: Logger;
  settings: SettingsService;
  writer: LanedWriter;
  registrar: Registrar;
  bus: EventBus;
  live: SseHub;
  /** This app's share of the event loop for live delivery (SSE, GraphQL subscriptions, WebSocket frames). */
  delivery: DeliveryBudget;
  /** This app's ingest CPU slices, shared by its HTTP and gRPC receivers and all their tenants. */
  slices: CpuSlices;
  /** The one budget of live connections (SSE, GraphQL over SSE and WebSocket). */
  liveClients: LiveClients;
  /** Places counted across workers and instances (live clients per key, sockets per address). */
  slots: SharedSlots;
  metrics: Metrics;
  health: HealthService;
  scoring: ScoringService;
  /** Security scans (docs/security.md#results-history-and-pins); the checks come from src/security/registry.ts. */
  security: ScanService;
  /** Anomaly detection over the span_hourly rollup (docs/anomalies.md); run in the background by startServer. */
  anomalies: AnomalyDetector;
  keys: KeyService;
  /** Creating, listing and revoking keys, for every adapter (authorization and audit inside). */
  keyAdmin: KeyAdmin;
  auth: Authenticator;
  audit: AuditLog;
  users: UsersService;
  /** Dashboard sign-in sessions (docs/ui.md#auth). */
  uiSessions: UiSessions;
  projects: ProjectsService;
  catalog: CatalogService;
  /** Reading spans (src/traces/): filters, keyset pages, one span with its payloads. */
  spans: SpansService;
  /** Sessions, their span trees and the lineage graph (src/sessions/). */
  sessions: SessionsService;
  /** Model pricing, tool-cost rules and the cost breakdown (src/costs/); ingest prices spans with it. */
  costs: CostService;
  /** SLO definitions and evaluation (docs/slos.md#rest); main.ts runs its background evaluator. */
  slos: SloService;
  /** Prevention configs the SDK's guards enforce (docs/prevention.md): project defaults and agent overrides. */
  prevention: PreventionService;
  /** Tool lists agents saw (POST /api/servers/{name}/tools): drift of servers Spyglass cannot reach. */
  observedTools: ObservedToolsService;
  /** A server's current tools, a drift's two tool lists, the sessions that called it (the dashboard's server tabs). */
  serverTools: ServerToolsService;
  /** The alert pipeline (docs/alerts.md, docs/alert-producers.md): every producer fires through it. */
  alerts: AlertService;
  /** The monitor's and ingest's alerts (src/alerts/producers), firing through `alerts`. */
  alertProducers: AlertProducers;
  /** Shared request counters for gRPC, WebSocket upgrades and pre-auth checks (memory or Redis). */
  limiter: Limiter;
  /** One warning per caller per minute when ingest is rate limited (HTTP and gRPC). */
  rateLimitWarnings: RateLimitWarnings;
  /** One info line per project per minute when OTLP spans are not agent, LLM or tool spans. */
  ignoredSpans: IgnoredSpansLog;
  /** Keeps planner statistics current on both back ends; started by startServer. */
  stats: StatsKeeper;
  ingest(spans: Span[]): Promise<IngestResult>;
  /** Flushes acknowledged work; the store is closed by its owner. */
  close(): Promise<void>;
}

export async function createServices(
  config: Config,
  store: Store,
  logger: Logger,
): Promise<Services> {
  // With Redis, changes to cached state are announced to the other instances (set up below).
  let sync: ClusterSync | null = null;
  const audit = new AuditLog(store.db, logger);
  const settings = new SettingsService(store.db, audit, () => sync?.announce('settings'));
  await settings.load();
  const writer = new LanedWriter(
    {
      encode: encodeSpans,
      commit: (spans, encoded) => insertSpans(store.db, spans, encoded),
      maxQueuedSpans: config.ingest.maxQueuedSpans,
      maxQueuedSpansPerProject: config.ingest.maxQueuedSpansPerProject,
      maxCommitSpans: config.ingest.maxCommitSpans,
      logger,
    },
    store.kind === 'postgres' ? config.ingest.commitLanes : 1,
  ); // PGlite runs one statement at a time anyway
  const registrar = new Registrar(store.db, logger);
  const bus = new EventBus();
  const metrics = new Metrics();
  const knownProjects = new KnownProjects(
    async (id) => (await findProject(store.db, id)) !== undefined,
  );
  // PGlite: a 6,000-row sample instead of 30,000, since ingest waits while it is read.
  const stats = new StatsKeeper(store.db, logger, {
    statisticsTarget: store.kind === 'pglite' ? 20 : undefined,
  });
  const costs = new CostService({
    db: store.db,
    audit,
    config,
    onChanged: (id) => sync?.announce('pricing', id),
  });
  await costs.load();
  const deps: IngestDeps = {
    writer,
    settings,
    registrar,
    bus,
    projects: knownProjects,
    pricing: { book: costs.book, rules: costs.rules },
    onIngested: (n: number) => {
      metrics.spansIngested.inc(n);
      stats.noteWritten(n);
    },
  };
  const keys = new KeyService(store.db, config.apiKeys);
  const users = new UsersService(store.db, keys, audit);
  const uiSessions = new UiSessions(store.db, users, keys, audit);
  // One outbound policy (docs/health.md#catalog-servers-and-the-outbound-url-policy) and one guarded connection pool for every API-supplied URL.
  const outbound = createOutbound(config.network.allowPrivateTargets);
  const health = new HealthService({
    config,
    db: store.db,
    bus,
    metrics,
    logger,
    guardedFetch: outbound.fetch,
  });
  const security = new ScanService({
    config,
    db: store.db,
    bus,
    logger,
    health,
    registry: await buildChecks({ config, db: store.db, logger, guardedFetch: outbound.fetch }),
  });
  const alerts = new AlertService({ config, db: store.db, bus, logger, metrics, audit, outbound });
  const unwatchScans = watchSecurityScans(bus, alerts, logger);
  const alertProducers = attachProducers({ sink: alerts, health, db: store.db, config, logger });
  deps.onCommitted = alertProducers.onCommitted;
  const delivery = new DeliveryBudget(config.live.deliverySharePercent / 100);
  const slots = new SharedSlots(
    config.redisUrl
      ? connectRedis(
          config.redisUrl,
          'shared caps (live clients per key, sockets per address)',
          logger,
          'each worker allows its share of the caps',
        )
      : undefined,
    {
      prefix: config.cluster.name,
      instanceId: config.cluster.instanceId,
      leaseMs: config.cluster.leaseSeconds * 1000,
      workers: config.workers,
    },
  );
  const liveClients = new LiveClients(
    { ...DEFAULT_LIVE_LIMITS, maxPerKey: config.live.maxClientsPerKey },
    (n) => {
      metrics.activeSse.set(n.sse + n['graphql-sse']);
      sync?.clientsChanged(liveClients.count);
    },
    slots,
  );
  const revocation = endRevokedStreams(keys, liveClients, logger);
  const live = new SseHub(bus, liveClients, delivery, {
    ...DEFAULT_SSE,
    keepaliveMs: config.live.keepaliveSeconds * 1000,
  });
  const forgetProject = (id: string) => {
    registrar.forgetProject(id);
    knownProjects.forget(id);
    costs.book.forget(id);
    alertProducers.forgetProject(id);
  };
  sync = config.redisUrl
    ? startClusterSync(config.redisUrl, config.cluster, DEFAULT_SSE.replay, logger, {
        bus,
        live,
        settings,
        costs,
        keys,
        forgetProject,
        liveClients: () => liveClients.count,
      })
    : null;
  const limiter = new Limiter(
    config.redisUrl
      ? connectRedis(
          config.redisUrl,
          'rate limits (shared counters)',
          logger,
          'each instance counts on its own',
        )
      : undefined,
    config.cluster.name,
  );
  if (config.rateLimits.enabled)
    deps.takeSpans = (project, n) =>
      limiter.take('spans-per-minute', config.rateLimits.spansPerMinute, `project:${project}`, n);
  return {
    config,
    store,
    logger,
    settings,
    writer,
    registrar,
    bus,
    live,
    delivery,
    slices: new CpuSlices(),
    liveClients,
    slots,
    metrics,
    health,
    scoring: new ScoringService({ db: store.db, health }),
    security,
    anomalies: new AnomalyDetector({ db: store.db, sink: alerts, logger }),
    keys,
    keyAdmin: new KeyAdmin({
      keys,
      audit,
      projectExists: async (id) => (await findProject(store.db, id)) !== undefined,
    }),
    auth: new Authenticator(
      keys,
      config.host,
      config.trustedProxyCidrs,
      config.rateLimits.enabled
        ? { limiter, perMinute: config.rateLimits.authFailures }
        : undefined,
      uiSessions,
    ),
    audit,
    users,
    uiSessions,
    projects: new ProjectsService(store.db, audit, keys, (id) => {
      forgetProject(id);
      sync?.announce('project', id);
    }),
    catalog: new CatalogService(store.db, {
      servers: config.servers,
      policy: outbound.policy,
      maxServersWithUrl: config.monitor.maxCatalogServersPerProject,
      audit,
    }),
    spans: new SpansService(store.db),
    sessions: new SessionsService(store.db),
    costs,
    slos: new SloService({ db: store.db, alerts, logger, audit }),
    prevention: new PreventionService({ db: store.db, audit }),
    observedTools: new ObservedToolsService({ db: store.db, alerts, logger }),
    serverTools: new ServerToolsService({ db: store.db }),
    alerts,
    alertProducers,
    limiter,
    rateLimitWarnings: new RateLimitWarnings(logger),
    ignoredSpans: new IgnoredSpansLog(logger),
    stats,
    ingest: (spans) => ingestSpans(deps, spans),
    close: async () => {
      await revocation.stop();
      await writer.close();
      unwatchScans();
      alertProducers.detach();
      await alertProducers.settled();
      await alerts.close();
      await audit.close();
      await limiter.close();
      await slots.close();
      await sync?.close();
    },
  };
}
