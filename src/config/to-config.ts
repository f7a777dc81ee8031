import { randomBytes } from 'node:crypto';
import { availableParallelism, hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { FileConfig } from './schema.ts';
import type { CamelKeys, Config, ServerConfig } from './types.ts';

export interface Context {
  cwd: string;
  configPath: string | undefined;
  /** Variable that gave a setting, by key path (src/config/env.ts). */
  names: Map<string, string>;
  /** The file's own `alerts.chat_webhook` (it wins over the environment's, docs/alerts.md). */
  fileChatWebhook: string | undefined;
  /** NODE_ENV, the default of `graphql.graphiql`. */
  nodeEnv: string | undefined;
}

/** The validated file shape as the server reads it: camelCase, paths resolved, computed defaults. */
export function toConfig(f: FileConfig, ctx: Context): Config {
  const { server, monitor, cluster, alerts } = f;
  const concurrencyReserved =
    monitor.concurrency_reserved ??
    (monitor.concurrency < 2 ? 0 : Math.max(1, Math.floor(monitor.concurrency / 8)));
  const envWebhook = ctx.names.has('alerts.chat_webhook') ? alerts.chat_webhook : undefined;
  return {
    host: server.host,
    port: server.port,
    grpcPort: server.grpc_port,
    workers: server.workers === 'auto' ? Math.min(64, availableParallelism()) : server.workers,
    databaseUrl: f.database.url,
    databaseReadUrl: f.database.read_url,
    databaseWarmUp: f.database.warm_up,
    dataDir: resolve(ctx.cwd, f.data_dir),
    configPath: ctx.configPath,
    apiKeys: f.auth.api_keys,
    redisUrl: f.redis.url,
    cluster: {
      ...camel(cluster),
      instanceId:
        cluster.instance_id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    },
    metricsToken: f.metrics_token,
    trustedProxyCidrs: f.auth.trusted_proxy_cidrs.length
      ? f.auth.trusted_proxy_cidrs
      : ['127.0.0.0/8', '::1/128'],
    chatWebhook: envWebhook,
    logLevel: f.log_level,
    ingest: camel(f.ingest),
    rateLimits: camel(f.rate_limits),
    live: camel(f.live),
    http: camel(f.http),
    network: camel(f.network),
    monitor: {
      enabled: monitor.enabled,
      intervalSeconds: monitor.health_check_interval_seconds,
      concurrency: monitor.concurrency,
      concurrencyReserved,
      maxCatalogServersPerProject: monitor.max_catalog_servers_per_project,
      alertOnEveryFailure: monitor.alert_on_every_failure,
    },
    retention: camel(f.retention),
    security: {
      ...camel(f.security),
      advisoriesPath:
        f.security.advisories_path === undefined
          ? undefined
          : resolve(ctx.configPath ? dirname(ctx.configPath) : ctx.cwd, f.security.advisories_path),
    },
    alerts: {
      chatWebhook: ctx.fileChatWebhook,
      consecutiveFailures: alerts.consecutive_failures,
      latencySpikeMultiplier: alerts.latency_spike_multiplier,
    },
    costs: { rules: f.costs.rules.map(camel) },
    anomalies: camel(f.anomalies),
    graphql: { graphiql: f.graphql.graphiql ?? ctx.nodeEnv !== 'production' },
    servers: f.servers.map((s): ServerConfig => ({
      ...camel(s),
      intervalSeconds: s.health_check_interval_seconds,
      timeoutSeconds: s.health_check_timeout_seconds ?? s.timeout_seconds,
    })),
  };
}

/** One level of snake_case keys to camelCase (the types say the same, src/config/types.ts). */
function camel<T extends object>(o: T): CamelKeys<T> {
  return Object.fromEntries(
    Object.entries(o).map(([k, v]) => [
      k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
      v,
    ]),
  ) as CamelKeys<T>;
}
