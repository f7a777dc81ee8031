/** The typed configuration, built once from defaults, then the config file, then the environment. */
export type Transport = 'stdio' | 'sse' | 'streamable_http';

export interface ServerConfig {
  name: string;
  transport: Transport;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
  intervalSeconds?: number;
  timeoutSeconds?: number;
  healthTool?: string;
  healthToolArgs?: Record<string, unknown>;
}

export interface Config {
  host: string;
  port: number;
  /** 0 disables the OTLP/gRPC receiver. */
  grpcPort: number;
  /** postgres:// URL; undefined selects embedded PGlite in dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  configPath: string | undefined;
  apiKeys: string[];
  /**
   * Read-only routes go to this PostgreSQL (a streaming replica) when set (docs/deploy.md);
   * SPYGLASS_DATABASE_READ_URL or `database.read_url`.
   */
  databaseReadUrl: string | undefined;
  redisUrl: string | undefined;
  /** HTTP+gRPC worker processes (node:cluster); `auto` = one per core. Above 1 needs Redis and PostgreSQL. */
  workers: number;
  /** Coordination of several workers and instances over Redis (docs/deploy.md). */
  cluster: ClusterConfig;
  metricsToken: string | undefined;
  trustedProxyCidrs: string[];
  chatWebhook: string | undefined;
  logLevel: string;
  ingest: IngestConfig;
  rateLimits: RateLimitConfig;
  /**
   * Live clients (SSE, GraphQL over SSE and WebSocket): at most this many per key, and the share
   * of the event loop their delivery may take (percent of wall time, src/live/delivery-share.ts).
   */
  live: { keepaliveSeconds: number; maxClientsPerKey: number; deliverySharePercent: number };
  /** Browser-facing checks (docs/auth.md#browsers-origin-and-host): origins allowed besides same-origin and loopback. */
  http: { allowedOrigins: string[] } & HttpServerLimits;
  /** Outbound-URL policy (docs/health.md#catalog-servers-and-the-outbound-url-policy): private ranges API-supplied URLs may reach (CIDRs). */
  network: { allowPrivateTargets: string[] };
  monitor: MonitorConfig;
  retention: {
    spansDays: number;
    healthDays: number;
    /** Daily span partitions created ahead of today by the maintenance job. */
    partitionsAheadDays: number;
  };
  security: SecurityConfig;
  alerts: AlertsConfig;
  costs: { rules: CostRule[] };
  /** The background anomaly detector (docs/anomalies.md): seconds between runs, 0 = off. */
  anomalies: { intervalSeconds: number };
  servers: ServerConfig[];
}

/** The `cluster:` section: what several workers and instances share through Redis. */
export interface ClusterConfig {
  /**
   * Prefix of every coordination key and channel in Redis (`<name>:...`): instances with the same
   * name (and database) are one cluster. SPYGLASS_CLUSTER_NAME or `cluster.name`, default `spyglass`.
   */
  name: string;
  /**
   * This process's name in leases and logs; SPYGLASS_INSTANCE_ID or `cluster.instance_id`, default
   * `<hostname>:<pid>:<random>` so that a restarted process is a new holder.
   */
  instanceId: string;
  /** The leader lease of the background jobs: another instance takes over within this period. */
  leaseSeconds: number;
  /** Live events kept in the shared Redis stream (approximate cap, oldest trimmed). */
  liveStreamLength: number;
}

/** The `alerts:` section (docs/alerts.md#config-keys). The env SPYGLASS_CHAT_WEBHOOK is Config.chatWebhook. */
export interface AlertsConfig {
  /** `alerts.chat_webhook`: used when no webhook was saved through the API; wins over the env. */
  chatWebhook: string | undefined;
  /** Failed checks in a row before `mcp_down` fires (default 3). */
  consecutiveFailures: number;
  /** `high_latency` fires above this many times a server's baseline latency (default 3). */
  latencySpikeMultiplier: number;
}

/** `costs.rules[]` (docs/costs.md#how-a-span-is-priced): the first rule whose globs match a tool call prices it. */
export interface CostRule {
  /** Glob on the server name (`*` any). */
  server: string;
  /** Glob on the tool name (`*` any). */
  tool: string;
  /** USD per call. */
  costUsd: number;
}

/** Security scans (docs/security.md). */
export interface SecurityConfig {
  /** OSV advisories replacing or extending the shipped file: a JSON file, a directory of OSV JSON, or an OSV export zip. */
  advisoriesPath: string | undefined;
  /** An OSV-compatible URL to refresh advisories from; unset (the default) = offline only. Goes through the outbound policy. */
  advisoriesUrl: string | undefined;
  advisoriesRefreshHours: number;
  /** Servers scanned at once. */
  concurrency: number;
  /** Scans (and their findings) are kept this many days. */
  historyDays: number;
}

export interface IngestConfig {
  /** Largest accepted request body, compressed or not (docs/auth.md#hardening: 10 MiB). */
  maxBodyBytes: number;
  /** Largest native batch (docs/ingest.md). */
  maxBatchSpans: number;
  /** Spans waiting for commit before new requests are refused with 503. */
  maxQueuedSpans: number;
  /**
   * Spans one project may have waiting for commit in one process before its requests are refused
   * with 429 (its own backlog); the queue is shared fairly between projects (docs/ingest.md).
   */
  maxQueuedSpansPerProject: number;
  /** Rows written in one group commit at most. */
  maxCommitSpans: number;
  /** Group-commit lanes committing concurrently on PostgreSQL (spans are assigned by session). */
  commitLanes: number;
  /**
   * `ingest.otlp_keep_all_spans`: OTLP spans that are not agent, LLM or tool spans are kept as
   * `generic` spans when their trace has a selected span in the same export (docs/ingest.md).
   */
  otlpKeepAllSpans: boolean;
}

/** Requests per minute (docs/auth.md#rate-limits), keyed by API key or client IP, per route. */
export interface RateLimitConfig {
  enabled: boolean;
  spans: number;
  otlp: number;
  /** Spans per minute per project over every receiver (a span-weighted limit beside the request limits). */
  spansPerMinute: number;
  acceptInvite: number;
  verify: number;
  default: number;
  /** Every request of one client address, checked before authentication (probes excepted). */
  perAddress: number;
  /** Failed authentications of one client address; beyond it the address gets 429 until the minute ends. */
  authFailures: number;
}

/** Socket-level limits of the HTTP server (slow or idle clients, connection floods). */
export interface HttpServerLimits {
  /** Time to receive a request's headers. */
  headersTimeoutSeconds: number;
  /** Time to receive a whole request, headers and body. */
  requestTimeoutSeconds: number;
  /** How long an idle keep-alive connection stays open between requests. */
  keepAliveTimeoutSeconds: number;
  /** Open connections per client address (trusted proxies excepted); 0 = no cap. */
  maxConnectionsPerAddress: number;
}

/** The `monitor:` section (docs/health.md#monitor-and-cli): the health-check monitor embedded in `spyglass serve`. */
export interface MonitorConfig {
  enabled: boolean;
  /** Global interval; servers[].health_check_interval_seconds wins. */
  intervalSeconds: number;
  /** Checks running at once in one process. */
  concurrency: number;
  /** Of those, slots a project already running checks may not take, kept for other projects. */
  concurrencyReserved: number;
  /** Catalog servers with a url one project may have (each one is checked by this server). */
  maxCatalogServersPerProject: number;
  /** `mcp_down` on every failed check instead of once per transition (docs/alert-producers.md#configuration). */
  alertOnEveryFailure: boolean;
}
