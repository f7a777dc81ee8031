import { randomBytes } from 'node:crypto';
import { availableParallelism, hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import proxyaddr from 'proxy-addr';
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

/** Rules between settings, checked once each setting is valid on its own. */
export function crossProblems(c: Config, names: Map<string, string>): string[] {
  const problems: string[] = [];
  // The variable when the value came from the environment, else the key.
  const env = (path: string) => names.get(path) ?? path;
  const port = env('server.port');
  const grpc = env('server.grpc_port');
  if (c.monitor.concurrencyReserved >= c.monitor.concurrency)
    problems.push('monitor.concurrency_reserved must be less than monitor.concurrency');
  const cidrs = names.get('auth.trusted_proxy_cidrs');
  checkCidrs(
    cidrs ? `${cidrs} (auth.trusted_proxy_cidrs)` : 'auth.trusted_proxy_cidrs',
    c.trustedProxyCidrs,
    problems,
  );
  checkCidrs('network.allow_private_targets', c.network.allowPrivateTargets, problems);
  if (c.port !== 0 && c.port === c.grpcPort)
    problems.push(
      `${port} and ${grpc} are both ${c.port}; HTTP and OTLP/gRPC need different ports`,
    );
  const pg = /^postgres(ql)?:\/\//;
  const dbUrl = env('database.url');
  const readUrl = env('database.read_url');
  if (c.databaseUrl && !pg.test(c.databaseUrl))
    problems.push(`${dbUrl} must start with postgres:// or postgresql://`);
  if (c.rateLimits.spansPerMinute < c.ingest.maxBatchSpans)
    problems.push(
      `rate_limits.spans_per_minute (${c.rateLimits.spansPerMinute}) must be at least ingest.max_batch_spans (${c.ingest.maxBatchSpans}), or a full batch could never be accepted`,
    );
  if (c.http.headersTimeoutSeconds > c.http.requestTimeoutSeconds)
    problems.push('http.headers_timeout_seconds cannot exceed http.request_timeout_seconds');
  const workers = env('server.workers');
  if (c.workers > 1 && !c.redisUrl)
    problems.push(
      `${workers} above 1 needs SPYGLASS_REDIS_URL (rate limits and live events are shared through Redis)`,
    );
  if (c.workers > 1 && !c.databaseUrl)
    problems.push(
      `${workers} above 1 needs SPYGLASS_DATABASE_URL (the embedded database belongs to one process)`,
    );
  if (c.databaseReadUrl && !pg.test(c.databaseReadUrl))
    problems.push(`${readUrl} must start with postgres:// or postgresql://`);
  if (c.databaseReadUrl && !c.databaseUrl)
    problems.push(`${readUrl} needs SPYGLASS_DATABASE_URL (a replica of which database?)`);
  serverProblems(c.servers, problems);
  return problems;
}

function serverProblems(servers: ServerConfig[], problems: string[]): void {
  const seen = new Set<string>();
  servers.forEach((s, i) => {
    const where = `servers[${i}]`;
    if (seen.has(s.name)) problems.push(`${where}.name "${s.name}" is used twice`);
    seen.add(s.name);
    if (s.transport === 'stdio' && !s.command)
      problems.push(`${where}.command is required for stdio`);
    if (s.transport !== 'stdio' && !s.url)
      problems.push(`${where}.url is required for ${s.transport}`);
  });
}

/** proxy-addr is what reads trusted proxies; it also knows an address from a CIDR. */
function checkCidrs(name: string, values: string[], problems: string[]): void {
  for (const v of values) {
    try {
      proxyaddr.compile(v);
    } catch {
      problems.push(
        `${name}: ${JSON.stringify(v)} is not an IP address or CIDR (like 10.0.0.0/8 or fd00::/8)`,
      );
    }
  }
}
