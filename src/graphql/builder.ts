import SchemaBuilder, { PothosValidationError } from '@pothos/core';
import RelayPlugin, { decodeGlobalID } from '@pothos/plugin-relay';
import { GraphQLError, valueFromASTUntyped } from 'graphql';
import type { Principal } from '../auth/principal.ts';
import type { LiveConnection } from '../live/live-clients.ts';
import { enforce } from '../auth/access.ts';
import { parseUtc } from '../normalize/native.ts';
import type { AlertService } from '../alerts/alert-service.ts';
import type { AnomalyDetector } from '../anomalies/detector.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import type { Authenticator } from '../auth/authenticate.ts';
import type { KeyAdmin } from '../auth/key-admin.ts';
import type { UiSessions } from '../auth/ui-sessions.ts';
import type { CatalogService } from '../catalog/catalog-service.ts';
import type { Config } from '../config/types.ts';
import type { CostService } from '../costs/cost-service.ts';
import type { HealthService } from '../health/health-service.ts';
import type { ObservedToolsService } from '../health/observed-tools.ts';
import type { ServerToolsService } from '../health/server-tools.ts';
import type { NativeIngest } from '../ingest/accept-native.ts';
import type { EventBus } from '../live/bus.ts';
import type { LiveClients } from '../live/live-clients.ts';
import type { DeliveryBudget } from '../live/delivery-share.ts';
import type { PreventionService } from '../prevention/config-service.ts';
import type { ProjectsService } from '../projects/projects-service.ts';
import type { Limiter } from '../scale/limits/limiter.ts';
import type { ScoringService } from '../scoring/scoring-service.ts';
import type { ScanService } from '../security/scan-service.ts';
import type { SessionsService } from '../sessions/sessions-service.ts';
import type { SettingsService } from '../settings/settings-service.ts';
import type { SloService } from '../slos/slo-service.ts';
import type { Store } from '../store/open-store.ts';
import type { SpansService } from '../traces/spans-service.ts';
import type { UsersService } from '../users/users-service.ts';

/**
 * What resolvers reach through `ctx.services`. Pothos gives the whole schema one context type, so
 * GraphQL is the one adapter that holds many services at once: it covers every capability of the
 * API. It still lists exactly what its resolvers (and its WebSocket transport, src/graphql/ws.ts)
 * use, not the process's whole set: no writer, registrar, metrics, keys, stats or alert producers.
 */
export interface GraphqlServices {
  alerts: AlertService;
  anomalies: AnomalyDetector;
  audit: AuditLog;
  /** Sign-in (ui-auth.ts) and the WebSocket handshake. */
  auth: Authenticator;
  catalog: CatalogService;
  config: Pick<Config, 'databaseReadUrl' | 'graphql' | 'http' | 'ingest' | 'rateLimits'>;
  costs: CostService;
  health: HealthService;
  /** The span ingest mutation. */
  ingest: NativeIngest['ingest'];
  keyAdmin: KeyAdmin;
  /** The sign-in and WebSocket rate limits. */
  limiter: Limiter;
  observedTools: ObservedToolsService;
  prevention: PreventionService;
  projects: ProjectsService;
  scoring: ScoringService;
  security: ScanService;
  serverTools: ServerToolsService;
  sessions: SessionsService;
  settings: SettingsService;
  slos: SloService;
  spans: SpansService;
  /** `me` reads its user row directly (ui-auth.ts); nothing else touches the store. */
  store: Pick<Store, 'db'>;
  uiSessions: UiSessions;
  users: UsersService;
  /** Subscriptions: the event bus and the one budget of live clients. */
  bus: EventBus;
  liveClients: LiveClients;
  /** The app's share of the event loop for live delivery (src/live/delivery-share.ts). */
  delivery: DeliveryBudget;
}

export interface Context {
  principal: Principal;
  services: GraphqlServices;
  /** The WebSocket a subscription arrives on (absent over HTTP). */
  live?: LiveConnection;
  /** Over HTTP: what the sign-in mutations need to set or clear the session cookie. */
  http?: HttpSignIn;
}

export interface HttpSignIn {
  /** The session token the request came with, if any. */
  sessionToken: string | undefined;
  /** Whether the request arrived over https (directly or from a trusted proxy saying so). */
  secure: boolean;
  /** The client address, for the sign-in rate limit. */
  clientAddress: string;
  setCookie(value: string): void;
}

/** The one Pothos builder; each domain file adds its types and fields. */
export const builder = new SchemaBuilder<{
  Context: Context;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [RelayPlugin],
  defaultFieldNullability: false,
  // Objects a client refetches implement Node; their global id is `nodeId` because `id` already
  // names the local id (a project's, a user's) in this schema, as in REST.
  // One node per request: nodes(ids:) would load an unbounded list of ids.
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    idFieldName: 'nodeId',
    idFieldOptions: { description: 'Global id: refetch with node(id:)' },
    nodesQueryOptions: false,
    decodeGlobalID: decodeNodeId,
  },
});

/** A global id naming no object type of this schema is the client's error (Pothos would throw a plain Error). */
function decodeNodeId(globalID: string): { typename: string; id: string } {
  const decoded = decodeGlobalID(globalID);
  try {
    builder.configStore.getTypeConfig(decoded.typename, 'Object');
  } catch {
    throw new PothosValidationError(`Invalid global ID: ${globalID}`);
  }
  return decoded;
}

builder.queryType({});
builder.mutationType({});

builder.scalarType('DateTime', {
  description: 'ISO 8601 timestamp in UTC',
  serialize: (d) => d.toISOString(),
  parseValue: (v) => {
    // ISO 8601 as REST reads it (no zone: UTC); Date() would also take 5, "273515" or "never 2020".
    const ms = typeof v === 'string' ? parseUtc(v) : Number.NaN;
    if (Number.isNaN(ms)) throw new GraphQLError('DateTime must be an ISO 8601 string');
    return new Date(ms);
  },
});

builder.scalarType('JSON', {
  description: 'Any JSON value',
  serialize: (v) => v,
  parseValue: (v) => v,
  // graphql-js builds inline object literals without a prototype; services and drizzle expect plain objects.
  parseLiteral: (ast, variables) => toPlain(valueFromASTUntyped(ast, variables)),
});

function toPlain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toPlain);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toPlain(x)]));
  return v;
}

/** Mutations need the admin role, exactly as REST writes do. */
export function requireAdmin(ctx: Context): void {
  enforce(ctx.principal, 'write');
}

/** A Relay connection page from a keyset page: each node's cursor, and whether more follow. */
export function toConnection<T>(nodes: T[], cursorOf: (node: T) => string, hasNextPage: boolean) {
  const edges = nodes.map((node) => ({ node, cursor: cursorOf(node) }));
  return {
    edges,
    pageInfo: {
      hasNextPage,
      hasPreviousPage: false,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

/** `project:key` from a node's local id (project ids never hold a colon; the key may). */
export function splitNodeKey(id: string): [projectId: string, key: string] {
  const at = id.indexOf(':');
  if (at <= 0) throw new PothosValidationError(`Invalid node id ${id}`);
  return [id.slice(0, at), id.slice(at + 1)];
}
