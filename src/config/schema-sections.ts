import { Type as T } from 'typebox';
import { bool, int, list, num, optStr, section, str } from './schema-kit.ts';

/** The sections of src/config/schema.ts that tune limits and background jobs. */

const MiB = 1024 * 1024;

export const CLUSTER = section(
  {
    name: str('spyglass', {
      description:
        'prefix of every Redis key and channel: instances with the same name (and database) are one cluster',
    }),
    instance_id: optStr({
      description: "this process's name in leases and logs",
      computed: '`<hostname>:<pid>:<random>`',
      alias: ['SPYGLASS_INSTANCE_ID'],
    }),
    lease_seconds: int(1, 600, 10, {
      description: 'leader lease of the background jobs: another instance takes over within it',
      alias: ['SPYGLASS_LEASE_SECONDS'],
    }),
    live_stream_length: int(100, 10_000_000, 10_000, {
      description: 'live events kept in the shared Redis stream (approximate cap)',
    }),
  },
  'Several workers and instances (docs/deploy.md)',
);

const Ingest = section(
  {
    max_body_bytes: int(1024, 1 << 30, 10 * MiB, {
      description: 'largest accepted request body, compressed or not',
      alias: ['SPYGLASS_MAX_BODY_BYTES'],
    }),
    max_batch_spans: int(1, 1_000_000, 10_000, { description: 'largest native batch' }),
    max_queued_spans: int(1, 10_000_000, 100_000, {
      description: 'spans waiting for commit before requests are refused with 503',
    }),
    max_queued_spans_per_project: int(1, 10_000_000, 20_000, {
      description: "one project's share of the commit queue; beyond it 429",
    }),
    max_commit_spans: int(1, 100_000, 5_000, { description: 'rows in one group commit at most' }),
    commit_lanes: int(1, 16, 2, {
      description: 'group-commit lanes on PostgreSQL, each with a database connection of its own',
    }),
    otlp_keep_all_spans: bool(false, {
      description:
        'keep OTLP spans that are not agent, LLM or tool spans as `generic` when their trace has a selected span',
    }),
  },
  'Ingest (docs/ingest.md)',
);

const perMinute = (dflt: number, description: string) =>
  int(1, 10_000_000, dflt, { description: `${description} (requests per minute)` });

const RateLimits = section(
  {
    enabled: bool(true, {
      description: 'rate limiting on or off',
      alias: ['SPYGLASS_RATE_LIMITS'],
    }),
    spans: perMinute(2000, 'POST /api/traces/spans per key or address'),
    otlp: perMinute(60, 'OTLP exports per key or address'),
    spans_per_minute: int(1, 1_000_000_000, 600_000, {
      description:
        'spans per minute per project over every receiver; at least `ingest.max_batch_spans`',
    }),
    accept_invite: perMinute(5, 'invite acceptance per address'),
    verify: perMinute(10, 'key verification per address'),
    default: perMinute(200, 'every other route per key or address'),
    per_address: perMinute(20_000, 'every request of one address, before authentication'),
    auth_failures: perMinute(20, 'failed authentications of one address before 429'),
  },
  'Rate limits (docs/auth.md#rate-limits)',
);

const Monitor = section(
  {
    enabled: bool(true, {
      description: 'run the embedded health monitor in `spyglass serve`',
      alias: ['SPYGLASS_MONITOR'],
    }),
    health_check_interval_seconds: int(1, 86_400, 60, {
      description: "global interval; a server's own `health_check_interval_seconds` wins",
    }),
    concurrency: int(1, 1000, 16, { description: 'checks running at once in one process' }),
    concurrency_reserved: T.Optional(
      int(0, 999, undefined, {
        description:
          'of those, slots a project already running checks may not take; less than `concurrency`',
        computed: 'an eighth of `concurrency` (at least 1; 0 when `concurrency` is 1)',
      }),
    ),
    max_catalog_servers_per_project: int(0, 100_000, 50, {
      description: 'catalog servers with a url one project may have',
    }),
    alert_on_every_failure: bool(false, {
      description: '`mcp_down` on every failed check instead of once per outage',
    }),
  },
  'Health monitor (docs/health.md#monitor-and-cli)',
);

const seconds = (dflt: number, description: string) => int(1, 3600, dflt, { description });

const Http = section(
  {
    allowed_origins: list({
      description: 'browser origins allowed besides same-origin and loopback (docs/auth.md)',
      alias: ['SPYGLASS_ALLOWED_ORIGINS'],
    }),
    headers_timeout_seconds: seconds(20, "time to receive a request's headers"),
    request_timeout_seconds: seconds(60, 'time to receive a whole request'),
    keep_alive_timeout_seconds: seconds(72, 'idle keep-alive connection lifetime'),
    max_connections_per_address: int(0, 1_000_000, 256, {
      description: 'open connections per client address (trusted proxies excepted); 0 = no cap',
    }),
  },
  'HTTP server',
);

export const LIMITS = {
  ingest: Ingest,
  rate_limits: RateLimits,
  monitor: Monitor,
  live: section(
    {
      keepalive_seconds: seconds(15, 'keep-alive interval of live streams'),
      max_clients_per_key: int(1, 200, 50, { description: 'live clients per API key' }),
      delivery_share_percent: int(1, 50, 10, {
        description: 'share of the event loop live delivery may take (percent of wall time)',
      }),
    },
    'Live clients: SSE, GraphQL over SSE and WebSocket (docs/api.md)',
  ),
  http: Http,
  network: section(
    {
      allow_private_targets: list({
        description: 'private ranges (CIDRs) API-supplied URLs may reach',
      }),
    },
    'Outbound-URL policy (docs/health.md#catalog-servers-and-the-outbound-url-policy)',
  ),
  retention: section(
    {
      spans_days: int(1, 3650, 30, { description: 'spans are kept this many days' }),
      health_days: int(1, 3650, 90, { description: 'health results are kept this many days' }),
      partitions_ahead_days: int(1, 366, 7, {
        description: 'daily span partitions created ahead of today',
      }),
    },
    'Retention',
  ),
  alerts: section(
    {
      chat_webhook: optStr({
        description:
          'Slack-compatible incoming webhook (https), used when none is saved through the API; here the file wins over the environment',
        alias: ['SPYGLASS_CHAT_WEBHOOK'],
        secret: true,
      }),
      consecutive_failures: int(1, 1000, 3, {
        description: 'failed checks in a row before `mcp_down` fires',
      }),
      latency_spike_multiplier: num(1.01, 1000, 3, {
        description: "`high_latency` fires above this many times a server's baseline",
      }),
      error_rate_threshold: T.Optional(
        T.Number({
          description: 'accepted and ignored: error-rate alerts are the anomaly detector',
        }),
      ),
    },
    'Alerts (docs/alerts.md#config-keys)',
  ),
  anomalies: section(
    {
      interval_seconds: int(0, 86_400, 60, {
        description: 'seconds between anomaly-detector runs; 0 = off',
      }),
    },
    'Anomaly detector (docs/anomalies.md)',
  ),
};

export const SECURITY = section(
  {
    advisories_path: optStr({
      description:
        'OSV advisories (JSON file, directory or export zip), relative to the config file',
    }),
    advisories_url: optStr({
      description: 'OSV-compatible URL to refresh advisories from; unset = offline only',
    }),
    advisories_refresh_hours: int(1, 8760, 24, { description: 'hours between refreshes' }),
    concurrency: int(1, 256, 8, { description: 'servers scanned at once' }),
    history_days: int(1, 3650, 90, { description: 'scans are kept this many days' }),
  },
  'Security scans (docs/security.md)',
);
