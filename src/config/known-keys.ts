/**
 * Every key spyglass.yaml may contain, per section. A key not listed here is reported as a
 * configuration problem, because a misspelt key would otherwise be ignored without a word.
 * Adding a setting: list its key here (under its section) and read it in load-config.ts.
 * Maps whose keys are the user's (servers[].env, headers, health_tool_args) are not checked.
 */
export const KNOWN_KEYS: Readonly<Record<string, readonly string[]>> = {
  '': [
    'server',
    'database',
    'data_dir',
    'log_level',
    'auth',
    'redis',
    'ingest',
    'rate_limits',
    'monitor',
    'live',
    'http',
    'network',
    'retention',
    'servers',
    'alerts',
    'costs',
    'security',
    'anomalies',
    'cluster',
  ],
  server: ['host', 'port', 'grpc_port', 'workers'],
  database: ['url', 'read_url'],
  cluster: ['name', 'instance_id', 'lease_seconds', 'live_stream_length'],
  auth: ['api_keys', 'trusted_proxy_cidrs'],
  redis: ['url'],
  ingest: [
    'max_body_bytes',
    'max_batch_spans',
    'max_queued_spans',
    'max_queued_spans_per_project',
    'max_commit_spans',
    'commit_lanes',
    'otlp_keep_all_spans',
  ],
  rate_limits: [
    'enabled',
    'spans',
    'otlp',
    'spans_per_minute',
    'accept_invite',
    'verify',
    'default',
    'per_address',
    'auth_failures',
  ],
  monitor: [
    'enabled',
    'health_check_interval_seconds',
    'concurrency',
    'concurrency_reserved',
    'max_catalog_servers_per_project',
    'alert_on_every_failure',
  ],
  live: ['keepalive_seconds', 'max_clients_per_key', 'delivery_share_percent'],
  http: [
    'allowed_origins',
    'headers_timeout_seconds',
    'request_timeout_seconds',
    'keep_alive_timeout_seconds',
    'max_connections_per_address',
  ],
  network: ['allow_private_targets'],
  retention: ['spans_days', 'health_days', 'partitions_ahead_days'],
  // docs/alert-producers.md#configuration, docs/costs.md, docs/anomalies.md and docs/security.md name these; accepted so a file written to the spec loads.
  // alerts.error_rate_threshold has no effect: error-rate alerts are the anomaly detector's z-scores.
  alerts: [
    'chat_webhook',
    'consecutive_failures',
    'latency_spike_multiplier',
    'error_rate_threshold',
  ],
  costs: ['rules'],
  anomalies: ['interval_seconds'],
  security: [
    'advisories_path',
    'advisories_url',
    'advisories_refresh_hours',
    'concurrency',
    'history_days',
  ],
  'servers[]': [
    'name',
    'transport',
    'command',
    'args',
    'env',
    'url',
    'headers',
    'health_check_interval_seconds',
    'health_check_timeout_seconds',
    'timeout_seconds',
    'health_tool',
    'health_tool_args',
  ],
};

/** Reports keys the file has and KNOWN_KEYS does not, and sections that are not mappings. */
export function checkKeys(file: Record<string, unknown>, problems: string[]): void {
  unknownIn(file, '', '', problems);
  for (const [section, value] of Object.entries(file)) {
    if (section === 'servers' || !KNOWN_KEYS[section] || value === null || value === undefined)
      continue;
    if (typeof value !== 'object' || Array.isArray(value)) {
      // data_dir and log_level are plain values; every other known top-level key is a section.
      if (section !== 'data_dir' && section !== 'log_level')
        problems.push(`${section} must be a mapping (key: value lines under it)`);
      continue;
    }
    unknownIn(value as Record<string, unknown>, section, section, problems);
  }
  if (Array.isArray(file.servers)) {
    file.servers.forEach((item: unknown, i) => {
      if (item && typeof item === 'object' && !Array.isArray(item))
        unknownIn(item as Record<string, unknown>, 'servers[]', `servers[${i}]`, problems);
    });
  }
}

function unknownIn(
  obj: Record<string, unknown>,
  section: string,
  where: string,
  problems: string[],
): void {
  const known = KNOWN_KEYS[section] ?? [];
  for (const key of Object.keys(obj)) {
    if (known.includes(key)) continue;
    const path = where ? `${where}.${key}` : key;
    problems.push(
      `unknown key ${path} (known ${where ? `keys of ${section}` : 'top-level keys'}: ${known.join(', ')})`,
    );
  }
}
