import type { Logger } from 'pino';
import type { AlertService } from './alerts/alert-service.ts';
import type { AlertProducers } from './alerts/producers/attach.ts';
import type { AuditLog } from './audit/audit-log.ts';
import { Authenticator } from './auth/authenticate.ts';
import type { KeyAdmin } from './auth/key-admin.ts';
import type { KeyService } from './auth/key-service.ts';
import type { CatalogService } from './catalog/catalog-service.ts';
import type { Registrar } from './catalog/registrar.ts';
import { createAdmin } from './compose/admin.ts';
import { createAlerting } from './compose/alerting.ts';
import { createHealth, createScoring, createSecurity } from './compose/checks.ts';
import { createCore, type Base } from './compose/core.ts';
import { createIngest } from './compose/ingest.ts';
import { createLive } from './compose/live.ts';
import { createLineageCache, createReads } from './compose/reads.ts';
import { createScale } from './compose/scale.ts';
import type { Config } from './config/types.ts';
import type { CostService } from './costs/cost-service.ts';
import type { HealthService } from './health/health-service.ts';
import type { ObservedToolsService } from './health/observed-tools.ts';
import type { ServerToolsService } from './health/server-tools.ts';
import type { IngestResult } from './ingest/ingest-service.ts';
import type { IgnoredSpansLog } from './ingest/ignored-spans-log.ts';
import type { LanedWriter } from './ingest/laned-writer.ts';
import type { RateLimitWarnings } from './ingest/rate-limit-warnings.ts';
import type { AnomalyDetector } from './anomalies/detector.ts';
import { EventBus } from './live/bus.ts';
import { CpuSlices } from './ingest/cpu-slices.ts';
import type { DeliveryBudget } from './live/delivery-share.ts';
import type { LiveClients } from './live/live-clients.ts';
import type { SseHub } from './live/sse-hub.ts';
import { Metrics } from './metrics/metrics.ts';
import { createOutbound } from './net/guarded-fetch.ts';
import type { Span } from './model/span.ts';
import type { PreventionService } from './prevention/config-service.ts';
import type { ProjectsService } from './projects/projects-service.ts';
import type { SharedSlots } from './scale/coord/slots.ts';
import type { Limiter } from './scale/limits/limiter.ts';
import type { ScoringService } from './scoring/scoring-service.ts';
import type { ScanService } from './security/scan-service.ts';
import type { SessionsService } from './sessions/sessions-service.ts';
import type { SettingsService } from './settings/settings-service.ts';
import type { SloService } from './slos/slo-service.ts';
import type { Store } from './store/open-store.ts';
import type { LineageCache } from './store/lineage-cache.ts';
import type { StatsKeeper } from './store/stats-keeper.ts';
import type { SpansService } from './traces/spans-service.ts';
import type { UiSessions } from './auth/ui-sessions.ts';
import type { UsersService } from './users/users-service.ts';

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
  /**
   * The lineage graph's closed hours summed once (PGlite only, else null): every writer of the
   * lineage rollups in this app tells it (span retention, started by startServer, too).
   */
  lineage: LineageCache | null;
  ingest(spans: Span[]): Promise<IngestResult>;
  /** Flushes acknowledged work; the store is closed by its owner. */
  close(): Promise<void>;
}

/**
 * The whole server's services, composed from the capability factories of src/compose/ (a CLI
 * command builds only the ones it needs, src/cli/local.ts). Nothing here starts a background job:
 * startServer (src/main.ts) does. What runs by itself is owned and stopped by `close()`: the
 * audit log's flush, the live key check and SSE keepalive, and with Redis the cluster sync.
 */
export async function createServices(
  config: Config,
  store: Store,
  logger: Logger,
): Promise<Services> {
  const base: Base = { config, store, logger };
  const core = createCore(base);
  const { audit, keys } = core;
  // With Redis, changes to cached state are announced to the other instances (sync started below).
  const scale = createScale(base);
  const bus = new EventBus();
  const metrics = new Metrics();
  // One outbound policy (docs/health.md#catalog-servers-and-the-outbound-url-policy) and one guarded connection pool for every API-supplied URL.
  const outbound = createOutbound(config.network.allowPrivateTargets);
  const health = createHealth(base, { bus, metrics, outbound });
  const forgetProject = (id: string) => {
    ingest.forgetProject(id);
    alerting.alertProducers.forgetProject(id);
  };
  // Every writer of the lineage rollups in this app tells it what it wrote (PGlite only).
  const lineage = createLineageCache(base);
  const admin = await createAdmin(base, {
    core,
    outbound,
    announce: scale.announce,
    forgetProject,
    lineage,
  });
  const reads = createReads(base, { audit, announce: scale.announce, lineage });
  await reads.costs.load();
  const security = await createSecurity(base, { bus, outbound, health });
  const alerting = createAlerting(base, { bus, metrics, audit, outbound, health });
  const { limiter } = scale;
  const ingest = createIngest(base, {
    settings: admin.settings,
    costs: reads.costs,
    bus,
    metrics,
    onCommitted: alerting.alertProducers.onCommitted,
    lineage,
    takeSpans: config.rateLimits.enabled
      ? (project, n) =>
          limiter.take(
            'spans-per-minute',
            config.rateLimits.spansPerMinute,
            `project:${project}`,
            n,
          )
      : undefined,
  });
  const live = createLive(base, { bus, metrics, keys, onClientsChanged: scale.clientsChanged });
  scale.startSync({
    bus,
    live: live.live,
    settings: admin.settings,
    costs: reads.costs,
    keys,
    forgetProject,
    liveClients: () => live.liveClients.count,
  });
  const auth = new Authenticator(
    keys,
    config.host,
    config.trustedProxyCidrs,
    config.rateLimits.enabled ? { limiter, perMinute: config.rateLimits.authFailures } : undefined,
    admin.uiSessions,
  );
  return {
    config,
    store,
    logger,
    ...admin,
    ...reads,
    writer: ingest.writer,
    registrar: ingest.registrar,
    stats: ingest.stats,
    lineage,
    rateLimitWarnings: ingest.rateLimitWarnings,
    ignoredSpans: ingest.ignoredSpans,
    ingest: ingest.ingest,
    bus,
    live: live.live,
    delivery: live.delivery,
    slices: new CpuSlices(),
    liveClients: live.liveClients,
    slots: live.slots,
    metrics,
    health,
    scoring: createScoring(base, { health }),
    security,
    anomalies: alerting.anomalies,
    slos: alerting.slos,
    observedTools: alerting.observedTools,
    alerts: alerting.alerts,
    alertProducers: alerting.alertProducers,
    keys,
    keyAdmin: core.keyAdmin,
    auth,
    audit,
    limiter,
    close: async () => {
      await ingest.close(); // commits, so the alert producers see every acknowledged batch
      await alerting.close();
      await core.close();
      await live.close();
      await scale.close();
    },
  };
}
