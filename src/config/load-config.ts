import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import proxyaddr from 'proxy-addr';
import { parse as parseYaml } from 'yaml';
import { parseCostRules } from './cost-rules.ts';
import { checkKeys } from './known-keys.ts';
import type { Config, ServerConfig, Transport } from './types.ts';

export type { Config, ServerConfig } from './types.ts';

/** Every problem found, reported at once rather than one per start attempt. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * Layers: defaults, then the YAML file (SPYGLASS_CONFIG or ./spyglass.yaml), then SPYGLASS_* env.
 * Never exits the process: the caller decides what to do with a ConfigError.
 */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const configPath = findConfigFile(env, cwd, problems);
  const file = configPath ? readYaml(configPath, problems) : {};
  const keyProblems: string[] = [];
  checkKeys(file, keyProblems);
  for (const p of keyProblems) problems.push(`${configPath ?? 'config'}: ${p}`);
  const server = obj(file.server);
  const ingest = obj(file.ingest);
  const retention = obj(file.retention);
  const limits = obj(file.rate_limits);
  const monitor = obj(file.monitor);
  const http = obj(file.http);
  const security = obj(file.security);
  const alerts = obj(file.alerts);
  const cluster = obj(file.cluster);

  const num = (name: string, raw: unknown, fallback: number, min: number, max: number): number => {
    if (raw === undefined || raw === '') return fallback;
    const n = typeof raw === 'number' ? raw : Number(raw);
    if (!Number.isFinite(n) || n < min || n > max) {
      problems.push(`${name} must be a number from ${min} to ${max} (got ${JSON.stringify(raw)})`);
      return fallback;
    }
    return n;
  };
  const int = (name: string, raw: unknown, fallback: number, min: number, max: number): number => {
    if (raw === undefined || raw === '') return fallback;
    const n = typeof raw === 'number' ? raw : Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(
        `${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`,
      );
      return fallback;
    }
    return n;
  };
  const bool = (name: string, raw: unknown, fallback: boolean): boolean => {
    if (raw === undefined || raw === null || raw === '') return fallback;
    if (typeof raw === 'boolean') return raw;
    const word = String(raw).trim().toLowerCase();
    if (['on', 'true', '1', 'yes'].includes(word)) return true;
    if (['off', 'false', '0', 'no'].includes(word)) return false;
    problems.push(`${name} must be true or false (got ${JSON.stringify(raw)})`);
    return fallback;
  };
  const list = (raw: string | undefined, fileValue: unknown): string[] => {
    if (raw !== undefined)
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    if (typeof fileValue === 'string')
      return fileValue
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    return Array.isArray(fileValue) ? fileValue.map(String) : [];
  };

  const config: Config = {
    host: env.SPYGLASS_HOST ?? str(server.host) ?? '127.0.0.1',
    port: int('SPYGLASS_PORT', env.SPYGLASS_PORT ?? server.port, 8000, 0, 65535),
    grpcPort: int('SPYGLASS_GRPC_PORT', env.SPYGLASS_GRPC_PORT ?? server.grpc_port, 4317, 0, 65535),
    databaseUrl: nonEmpty(env.SPYGLASS_DATABASE_URL) ?? str(obj(file.database).url),
    databaseReadUrl: nonEmpty(env.SPYGLASS_DATABASE_READ_URL) ?? str(obj(file.database).read_url),
    dataDir: resolve(cwd, env.SPYGLASS_DATA_DIR ?? str(file.data_dir) ?? '.spyglass'),
    configPath,
    apiKeys: list(env.SPYGLASS_API_KEYS, obj(file.auth).api_keys),
    redisUrl: nonEmpty(env.SPYGLASS_REDIS_URL) ?? str(obj(file.redis).url),
    workers: workerCount(env.SPYGLASS_WORKERS ?? server.workers, problems),
    cluster: {
      name: nonEmpty(env.SPYGLASS_CLUSTER_NAME) ?? str(cluster.name) ?? 'spyglass',
      instanceId:
        nonEmpty(env.SPYGLASS_INSTANCE_ID) ??
        str(cluster.instance_id) ??
        `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
      leaseSeconds: int(
        'SPYGLASS_LEASE_SECONDS (cluster.lease_seconds)',
        env.SPYGLASS_LEASE_SECONDS ?? cluster.lease_seconds,
        10,
        1,
        600,
      ),
      liveStreamLength: int(
        'cluster.live_stream_length',
        cluster.live_stream_length,
        10_000,
        100,
        10_000_000,
      ),
    },
    metricsToken: nonEmpty(env.SPYGLASS_METRICS_TOKEN),
    trustedProxyCidrs: list(env.SPYGLASS_TRUSTED_PROXY_CIDRS, obj(file.auth).trusted_proxy_cidrs),
    chatWebhook: nonEmpty(env.SPYGLASS_CHAT_WEBHOOK),
    logLevel: logLevel(nonEmpty(env.SPYGLASS_LOG_LEVEL) ?? str(file.log_level), problems),
    ingest: {
      maxBodyBytes: int(
        'ingest.max_body_bytes',
        env.SPYGLASS_MAX_BODY_BYTES ?? ingest.max_body_bytes,
        10 * 1024 * 1024,
        1024,
        1 << 30,
      ),
      maxBatchSpans: int('ingest.max_batch_spans', ingest.max_batch_spans, 10_000, 1, 1_000_000),
      maxQueuedSpans: int(
        'ingest.max_queued_spans',
        ingest.max_queued_spans,
        100_000,
        1,
        10_000_000,
      ),
      maxQueuedSpansPerProject: int(
        'ingest.max_queued_spans_per_project',
        ingest.max_queued_spans_per_project,
        20_000,
        1,
        10_000_000,
      ),
      maxCommitSpans: int('ingest.max_commit_spans', ingest.max_commit_spans, 5_000, 1, 100_000),
      commitLanes: int('ingest.commit_lanes', ingest.commit_lanes, 2, 1, 16),
      otlpKeepAllSpans: bool('ingest.otlp_keep_all_spans', ingest.otlp_keep_all_spans, false),
    },
    rateLimits: {
      enabled: bool(
        'SPYGLASS_RATE_LIMITS (rate_limits.enabled)',
        env.SPYGLASS_RATE_LIMITS ?? limits.enabled,
        true,
      ),
      spans: int('rate_limits.spans', limits.spans, 2000, 1, 10_000_000),
      otlp: int('rate_limits.otlp', limits.otlp, 60, 1, 10_000_000),
      spansPerMinute: int(
        'rate_limits.spans_per_minute',
        limits.spans_per_minute,
        600_000,
        1,
        1_000_000_000,
      ),
      acceptInvite: int('rate_limits.accept_invite', limits.accept_invite, 5, 1, 10_000_000),
      verify: int('rate_limits.verify', limits.verify, 10, 1, 10_000_000),
      default: int('rate_limits.default', limits.default, 200, 1, 10_000_000),
      perAddress: int('rate_limits.per_address', limits.per_address, 20_000, 1, 10_000_000),
      authFailures: int('rate_limits.auth_failures', limits.auth_failures, 20, 1, 10_000_000),
    },
    monitor: {
      enabled: bool('monitor.enabled', env.SPYGLASS_MONITOR ?? monitor.enabled, true),
      intervalSeconds: int(
        'monitor.health_check_interval_seconds',
        monitor.health_check_interval_seconds,
        60,
        1,
        86_400,
      ),
      concurrency: int('monitor.concurrency', monitor.concurrency, 16, 1, 1000),
      concurrencyReserved: int(
        'monitor.concurrency_reserved',
        monitor.concurrency_reserved,
        -1,
        0,
        999,
      ),
      maxCatalogServersPerProject: int(
        'monitor.max_catalog_servers_per_project',
        monitor.max_catalog_servers_per_project,
        50,
        0,
        100_000,
      ),
      alertOnEveryFailure: bool(
        'monitor.alert_on_every_failure',
        monitor.alert_on_every_failure,
        false,
      ),
    },
    live: {
      keepaliveSeconds: int(
        'live.keepalive_seconds',
        obj(file.live).keepalive_seconds,
        15,
        1,
        3600,
      ),
      maxClientsPerKey: int(
        'live.max_clients_per_key',
        obj(file.live).max_clients_per_key,
        50,
        1,
        200,
      ),
      deliverySharePercent: int(
        'live.delivery_share_percent',
        obj(file.live).delivery_share_percent,
        10,
        1,
        50,
      ),
    },
    http: {
      allowedOrigins: list(env.SPYGLASS_ALLOWED_ORIGINS, obj(file.http).allowed_origins),
      headersTimeoutSeconds: int(
        'http.headers_timeout_seconds',
        http.headers_timeout_seconds,
        20,
        1,
        3600,
      ),
      requestTimeoutSeconds: int(
        'http.request_timeout_seconds',
        http.request_timeout_seconds,
        60,
        1,
        3600,
      ),
      keepAliveTimeoutSeconds: int(
        'http.keep_alive_timeout_seconds',
        http.keep_alive_timeout_seconds,
        72,
        1,
        3600,
      ),
      maxConnectionsPerAddress: int(
        'http.max_connections_per_address',
        http.max_connections_per_address,
        256,
        0,
        1_000_000,
      ),
    },
    network: { allowPrivateTargets: list(undefined, obj(file.network).allow_private_targets) },
    retention: {
      spansDays: int('retention.spans_days', retention.spans_days, 30, 1, 3650),
      healthDays: int('retention.health_days', retention.health_days, 90, 1, 3650),
      partitionsAheadDays: int(
        'retention.partitions_ahead_days',
        retention.partitions_ahead_days,
        7,
        1,
        366,
      ),
    },
    security: {
      advisoriesPath: optionalPath(security.advisories_path, configPath, cwd),
      advisoriesUrl:
        typeof security.advisories_url === 'string' && security.advisories_url !== ''
          ? security.advisories_url
          : undefined,
      advisoriesRefreshHours: int(
        'security.advisories_refresh_hours',
        security.advisories_refresh_hours,
        24,
        1,
        8760,
      ),
      concurrency: int('security.concurrency', security.concurrency, 8, 1, 256),
      historyDays: int('security.history_days', security.history_days, 90, 1, 3650),
    },
    alerts: {
      chatWebhook: str(alerts.chat_webhook),
      consecutiveFailures: int(
        'alerts.consecutive_failures',
        alerts.consecutive_failures,
        3,
        1,
        1000,
      ),
      latencySpikeMultiplier: num(
        'alerts.latency_spike_multiplier',
        alerts.latency_spike_multiplier,
        3,
        1.01,
        1000,
      ),
    },
    costs: { rules: parseCostRules(obj(file.costs).rules, problems) },
    anomalies: {
      intervalSeconds: int(
        'anomalies.interval_seconds',
        obj(file.anomalies).interval_seconds,
        60,
        0,
        86_400,
      ),
    },
    servers: parseServers(file.servers, problems),
  };
  // An eighth of the slots (at least one) by default; always at least one slot a single project can use.
  if (config.monitor.concurrencyReserved < 0)
    config.monitor.concurrencyReserved =
      config.monitor.concurrency < 2 ? 0 : Math.max(1, Math.floor(config.monitor.concurrency / 8));
  if (config.monitor.concurrencyReserved >= config.monitor.concurrency)
    problems.push('monitor.concurrency_reserved must be less than monitor.concurrency');
  if (config.trustedProxyCidrs.length === 0) config.trustedProxyCidrs = ['127.0.0.0/8', '::1/128'];
  checkCidrs(
    'SPYGLASS_TRUSTED_PROXY_CIDRS (auth.trusted_proxy_cidrs)',
    config.trustedProxyCidrs,
    problems,
  );
  checkCidrs('network.allow_private_targets', config.network.allowPrivateTargets, problems);
  if (config.port !== 0 && config.port === config.grpcPort) {
    problems.push(
      `SPYGLASS_PORT and SPYGLASS_GRPC_PORT are both ${config.port}; HTTP and OTLP/gRPC need different ports`,
    );
  }
  if (config.databaseUrl && !/^postgres(ql)?:\/\//.test(config.databaseUrl)) {
    problems.push('SPYGLASS_DATABASE_URL must start with postgres:// or postgresql://');
  }
  if (config.rateLimits.spansPerMinute < config.ingest.maxBatchSpans) {
    problems.push(
      `rate_limits.spans_per_minute (${config.rateLimits.spansPerMinute}) must be at least ingest.max_batch_spans (${config.ingest.maxBatchSpans}), or a full batch could never be accepted`,
    );
  }
  if (config.http.headersTimeoutSeconds > config.http.requestTimeoutSeconds) {
    problems.push('http.headers_timeout_seconds cannot exceed http.request_timeout_seconds');
  }
  if (config.workers > 1 && !config.redisUrl) {
    problems.push(
      'SPYGLASS_WORKERS above 1 needs SPYGLASS_REDIS_URL (rate limits and live events are shared through Redis)',
    );
  }
  if (config.workers > 1 && !config.databaseUrl) {
    problems.push(
      'SPYGLASS_WORKERS above 1 needs SPYGLASS_DATABASE_URL (the embedded database belongs to one process)',
    );
  }
  if (config.databaseReadUrl && !/^postgres(ql)?:\/\//.test(config.databaseReadUrl)) {
    problems.push('SPYGLASS_DATABASE_READ_URL must start with postgres:// or postgresql://');
  }
  if (config.databaseReadUrl && !config.databaseUrl) {
    problems.push(
      'SPYGLASS_DATABASE_READ_URL needs SPYGLASS_DATABASE_URL (a replica of which database?)',
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** SPYGLASS_WORKERS / server.workers: 1-64, or `auto` for one per core. */
function workerCount(raw: unknown, problems: string[]): number {
  if (raw === undefined || raw === '') return 1;
  if (typeof raw === 'string' && raw.trim().toLowerCase() === 'auto')
    return Math.min(64, availableParallelism());
  const n = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 64) {
    problems.push(
      `SPYGLASS_WORKERS (server.workers) must be an integer from 1 to 64 or auto (got ${JSON.stringify(raw)})`,
    );
    return 1;
  }
  return n;
}

/** A path from the config file, relative to that file's directory (or the working directory without one). */
function optionalPath(
  raw: unknown,
  configPath: string | undefined,
  cwd: string,
): string | undefined {
  if (typeof raw !== 'string' || raw === '') return undefined;
  return resolve(configPath ? dirname(configPath) : cwd, raw);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(raw: string | undefined, problems: string[]): string {
  if (raw === undefined) return 'info';
  const level = raw.toLowerCase();
  if (LOG_LEVELS.includes(level)) return level;
  problems.push(
    `SPYGLASS_LOG_LEVEL (log_level) must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(raw)})`,
  );
  return 'info';
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

function findConfigFile(env: Env, cwd: string, problems: string[]): string | undefined {
  if (env.SPYGLASS_CONFIG) {
    const path = resolve(cwd, env.SPYGLASS_CONFIG);
    if (!existsSync(path)) problems.push(`SPYGLASS_CONFIG names ${path}, which does not exist`);
    return existsSync(path) ? path : undefined;
  }
  const fallback = resolve(cwd, 'spyglass.yaml');
  return existsSync(fallback) ? fallback : undefined;
}

function readYaml(path: string, problems: string[]): Record<string, unknown> {
  try {
    const parsed: unknown = parseYaml(readFileSync(path, 'utf8'));
    if (parsed === null || parsed === undefined) return {};
    if (typeof parsed !== 'object' || Array.isArray(parsed)) {
      problems.push(`${path}: the top level must be a mapping`);
      return {};
    }
    return parsed as Record<string, unknown>;
  } catch (err) {
    problems.push(`${path}: ${(err as Error).message}`);
    return {};
  }
}

const TRANSPORTS: readonly Transport[] = ['stdio', 'sse', 'streamable_http'];

function parseServers(raw: unknown, problems: string[]): ServerConfig[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    problems.push('servers must be a list');
    return [];
  }
  const seen = new Set<string>();
  const out: ServerConfig[] = [];
  raw.forEach((item: unknown, i) => {
    const s = obj(item);
    const where = `servers[${i}]`;
    const name = str(s.name);
    const transport = str(s.transport) as Transport | undefined;
    if (!name) return void problems.push(`${where}.name is required`);
    if (seen.has(name)) problems.push(`${where}.name "${name}" is used twice`);
    seen.add(name);
    if (!transport || !TRANSPORTS.includes(transport)) {
      return void problems.push(`${where}.transport must be one of ${TRANSPORTS.join(', ')}`);
    }
    if (transport === 'stdio' && !str(s.command))
      problems.push(`${where}.command is required for stdio`);
    if (transport !== 'stdio' && !str(s.url))
      problems.push(`${where}.url is required for ${transport}`);
    const timeout = s.health_check_timeout_seconds ?? s.timeout_seconds;
    out.push({
      name,
      transport,
      command: str(s.command),
      args: Array.isArray(s.args) ? s.args.map(String) : undefined,
      env: strMap(s.env),
      url: str(s.url),
      headers: strMap(s.headers),
      intervalSeconds:
        typeof s.health_check_interval_seconds === 'number'
          ? s.health_check_interval_seconds
          : undefined,
      timeoutSeconds: typeof timeout === 'number' ? timeout : undefined,
      healthTool: str(s.health_tool),
      healthToolArgs: s.health_tool_args ? obj(s.health_tool_args) : undefined,
    });
  });
  return out;
}

function obj(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;
}
function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}
function strMap(v: unknown): Record<string, string> | undefined {
  if (!v || typeof v !== 'object') return undefined;
  return Object.fromEntries(Object.entries(v).map(([k, val]) => [k, String(val)]));
}
