import type { FileConfig } from './schema.ts';

/**
 * The typed configuration the server reads, built by to-config.ts from the validated file shape
 * (src/config/schema.ts, where each setting is described): camelCase, paths resolved, computed
 * defaults filled in. Sections are the schema's own types with camelCase keys.
 */
type Camel<S extends string> = S extends `${infer H}_${infer R}`
  ? `${H}${Capitalize<Camel<R>>}`
  : S;
/** `{ max_body_bytes: number }` -> `{ maxBodyBytes: number }` (one level). */
export type CamelKeys<T> = { [K in keyof T as K extends string ? Camel<K> : K]: T[K] };

type ServerEntry = FileConfig['servers'][number];
export type Transport = ServerEntry['transport'];

export type ServerConfig = CamelKeys<
  Omit<ServerEntry, 'health_check_interval_seconds' | 'health_check_timeout_seconds'>
> & {
  /** `health_check_interval_seconds`; the monitor's interval when unset. */
  intervalSeconds?: number;
  /** `health_check_timeout_seconds` or `timeout_seconds`; src/health/monitor-config.ts's default when unset. */
  timeoutSeconds?: number;
};

export type ClusterConfig = CamelKeys<FileConfig['cluster']> & { instanceId: string };
export type AlertsConfig = Omit<CamelKeys<FileConfig['alerts']>, 'errorRateThreshold'>;
export type CostRule = CamelKeys<FileConfig['costs']['rules'][number]>;
export type SecurityConfig = CamelKeys<FileConfig['security']>;
export type IngestConfig = CamelKeys<FileConfig['ingest']>;
export type RateLimitConfig = CamelKeys<FileConfig['rate_limits']>;
export type HttpServerLimits = Omit<CamelKeys<FileConfig['http']>, 'allowedOrigins'>;
export type MonitorConfig = Omit<
  CamelKeys<FileConfig['monitor']>,
  'healthCheckIntervalSeconds' | 'concurrencyReserved'
> & { intervalSeconds: number; concurrencyReserved: number };

export interface Config {
  /** `server.host` and so on: the listeners stay at the top level. */
  host: string;
  port: number;
  /** 0 disables the OTLP/gRPC receiver. */
  grpcPort: number;
  /** `auto` resolved to the number of cores (at most 64). */
  workers: number;
  /** postgres:// URL; undefined selects embedded PGlite in dataDir. */
  databaseUrl: string | undefined;
  databaseReadUrl: string | undefined;
  /** Warm the pool connections once listening (PostgreSQL; startup/read-warm-up.ts). */
  databaseWarmUp: boolean;
  /** Absolute. */
  dataDir: string;
  /** The file read (SPYGLASS_CONFIG or ./spyglass.yaml), if any. */
  configPath: string | undefined;
  apiKeys: string[];
  redisUrl: string | undefined;
  cluster: ClusterConfig;
  metricsToken: string | undefined;
  trustedProxyCidrs: string[];
  /** The chat webhook given by the environment; `alerts.chatWebhook` is the file's, which wins. */
  chatWebhook: string | undefined;
  logLevel: FileConfig['log_level'];
  ingest: IngestConfig;
  rateLimits: RateLimitConfig;
  live: CamelKeys<FileConfig['live']>;
  http: { allowedOrigins: string[] } & HttpServerLimits;
  network: CamelKeys<FileConfig['network']>;
  monitor: MonitorConfig;
  retention: CamelKeys<FileConfig['retention']>;
  security: SecurityConfig;
  alerts: AlertsConfig;
  costs: { rules: CostRule[] };
  anomalies: CamelKeys<FileConfig['anomalies']>;
  /** GraphiQL at /graphql; by default on unless NODE_ENV is `production`. */
  graphql: { graphiql: boolean };
  servers: ServerConfig[];
}
