import type { FastifyInstance } from 'fastify';
import type { JsonParsePool } from './receivers/json-pool.ts';
import { registerAuditRoutes, type AuditRoutesDeps } from './rest/audit-routes.ts';
import { registerCatalogRoutes, type CatalogRoutesDeps } from './rest/catalog-routes.ts';
import { registerLiveRoutes, type LiveRoutesDeps } from './rest/live-routes.ts';
import { registerSessionRoutes, type SessionRoutesDeps } from './rest/sessions-routes.ts';
import { registerKeyRoutes, type KeyRoutesDeps } from './rest/keys-routes.ts';
import { registerProjectRoutes, type ProjectRoutesDeps } from './rest/projects-routes.ts';
import { registerUserRoutes, type UserRoutesDeps } from './rest/users-routes.ts';
import { registerNativeReceiver, type NativeReceiverDeps } from './receivers/native-http.ts';
import { registerOtlpHttpReceiver, type OtlpHttpReceiverDeps } from './receivers/otlp-http.ts';
import { registerGraphql, type GraphqlDeps } from './graphql/yoga.ts';
import { registerSettingsRoutes, type SettingsRoutesDeps } from './rest/settings-routes.ts';
import { registerTracesRoutes, type TracesRoutesDeps } from './rest/traces-routes.ts';
import { registerHealthRoutes, type HealthRoutesDeps } from './rest/health-routes.ts';
import { registerSecurityRoutes, type SecurityRoutesDeps } from './rest/security-routes.ts';
import {
  registerReliabilityRoutes,
  type ReliabilityRoutesDeps,
} from './rest/reliability-routes.ts';
import { registerCostsRoutes, type CostsRoutesDeps } from './rest/costs-routes.ts';
import { registerSloRoutes, type SloRoutesDeps } from './rest/slos-routes.ts';
import { registerAlertRoutes, type AlertRoutesDeps } from './rest/alerts-routes.ts';
import { registerPreventionRoutes, type PreventionRoutesDeps } from './rest/prevention-routes.ts';

/** What the route modules declare they use (each module's `…Deps`), together. */
export type RoutesDeps = NativeReceiverDeps &
  OtlpHttpReceiverDeps &
  TracesRoutesDeps &
  SettingsRoutesDeps &
  KeyRoutesDeps &
  UserRoutesDeps &
  ProjectRoutesDeps &
  AuditRoutesDeps &
  SessionRoutesDeps &
  CatalogRoutesDeps &
  LiveRoutesDeps &
  HealthRoutesDeps &
  SecurityRoutesDeps &
  ReliabilityRoutesDeps &
  CostsRoutesDeps &
  SloRoutesDeps &
  AlertRoutesDeps &
  PreventionRoutesDeps &
  GraphqlDeps;

/**
 * The receivers, the REST resources and GraphQL, each handed only the services it declares: a
 * module cannot reach one it has no business with (its parameter's type does not have it), and
 * the object it gets holds nothing more.
 */
export async function registerRoutes(
  app: FastifyInstance,
  s: RoutesDeps,
  jsonPool: JsonParsePool,
): Promise<void> {
  const { config, ingest, metrics, ignoredSpans, rateLimitWarnings } = s;
  await registerNativeReceiver(
    app,
    { config, ingest, writer: s.writer, rateLimitWarnings, slices: s.slices },
    jsonPool,
  );
  await registerOtlpHttpReceiver(
    app,
    { config, ingest, metrics, ignoredSpans, rateLimitWarnings, slices: s.slices },
    jsonPool,
  );
  registerTracesRoutes(app, { spans: s.spans });
  registerSettingsRoutes(app, { settings: s.settings });
  registerKeyRoutes(app, { keyAdmin: s.keyAdmin });
  registerUserRoutes(app, { users: s.users });
  registerProjectRoutes(app, { projects: s.projects });
  registerAuditRoutes(app, { audit: s.audit });
  registerSessionRoutes(app, { sessions: s.sessions });
  registerCatalogRoutes(app, { catalog: s.catalog });
  registerLiveRoutes(app, { config, live: s.live });
  registerHealthRoutes(app, {
    health: s.health,
    observedTools: s.observedTools,
    scoring: s.scoring,
  });
  registerSecurityRoutes(app, { security: s.security });
  registerReliabilityRoutes(app, { anomalies: s.anomalies });
  registerCostsRoutes(app, { costs: s.costs });
  registerSloRoutes(app, { slos: s.slos });
  registerAlertRoutes(app, { alerts: s.alerts });
  registerPreventionRoutes(app, { prevention: s.prevention });
  registerGraphql(app, {
    logger: s.logger,
    alerts: s.alerts,
    anomalies: s.anomalies,
    audit: s.audit,
    auth: s.auth,
    catalog: s.catalog,
    config,
    costs: s.costs,
    health: s.health,
    ingest,
    keyAdmin: s.keyAdmin,
    limiter: s.limiter,
    observedTools: s.observedTools,
    prevention: s.prevention,
    projects: s.projects,
    scoring: s.scoring,
    security: s.security,
    serverTools: s.serverTools,
    sessions: s.sessions,
    settings: s.settings,
    slos: s.slos,
    spans: s.spans,
    store: s.store,
    uiSessions: s.uiSessions,
    users: s.users,
    bus: s.bus,
    liveClients: s.liveClients,
    delivery: s.delivery,
  });
}
