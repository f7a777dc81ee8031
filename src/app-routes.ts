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
  await registerNativeReceiver(
    app,
    pick(s, 'config', 'ingest', 'writer', 'rateLimitWarnings', 'slices'),
    jsonPool,
  );
  await registerOtlpHttpReceiver(
    app,
    pick(s, 'config', 'ingest', 'metrics', 'ignoredSpans', 'rateLimitWarnings', 'slices'),
    jsonPool,
  );
  registerTracesRoutes(app, pick(s, 'spans'));
  registerSettingsRoutes(app, pick(s, 'settings'));
  registerKeyRoutes(app, pick(s, 'keyAdmin'));
  registerUserRoutes(app, pick(s, 'users'));
  registerProjectRoutes(app, pick(s, 'projects'));
  registerAuditRoutes(app, pick(s, 'audit'));
  registerSessionRoutes(app, pick(s, 'sessions'));
  registerCatalogRoutes(app, pick(s, 'catalog'));
  registerLiveRoutes(app, pick(s, 'config', 'live'));
  registerHealthRoutes(app, pick(s, 'health', 'observedTools', 'scoring'));
  registerSecurityRoutes(app, pick(s, 'security'));
  registerReliabilityRoutes(app, pick(s, 'anomalies'));
  registerCostsRoutes(app, pick(s, 'costs'));
  registerSloRoutes(app, pick(s, 'slos'));
  registerAlertRoutes(app, pick(s, 'alerts'));
  registerPreventionRoutes(app, pick(s, 'prevention'));
  registerGraphql(
    app,
    pick(
      s,
      'logger',
      'alerts',
      'anomalies',
      'audit',
      'auth',
      'catalog',
      'config',
      'costs',
      'health',
      'ingest',
      'keyAdmin',
      'limiter',
      'observedTools',
      'prevention',
      'projects',
      'scoring',
      'security',
      'serverTools',
      'sessions',
      'settings',
      'slos',
      'spans',
      'store',
      'uiSessions',
      'users',
      'bus',
      'liveClients',
      'delivery',
    ),
  );
}

/**
 * An object with exactly `keys` of `s` and nothing more. Each member is read from `s` when used,
 * not copied at start: a service the app replaces later (tests install their own security checks
 * or an SLO clock on a running server) is the one its routes call.
 */
export function pick<T extends object, K extends keyof T>(s: T, ...keys: K[]): Pick<T, K> {
  const o = {} as Pick<T, K>;
  for (const k of keys) Object.defineProperty(o, k, { get: () => s[k], enumerable: true });
  return o;
}
