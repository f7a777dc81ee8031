import { describe, expect, it } from 'vitest';
import { kind } from '../../src/config/coerce.ts';
import { ENV_SETTINGS } from '../../src/config/env.ts';
import { ConfigError, parseConfig } from '../../src/config/load-config.ts';

/** parseConfig(env, text) called directly: no file system, no process. */
function problems(env: Record<string, string>, text?: string): string[] {
  try {
    parseConfig(env, text, { cwd: '/srv', configPath: '/etc/spyglass.yaml' });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfig', () => {
  it('gives every default with no file and no environment', () => {
    const c = parseConfig({}, undefined, { cwd: '/srv' });
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 8000,
      grpcPort: 4317,
      workers: 1,
      databaseUrl: undefined,
      databaseWarmUp: true,
      dataDir: '/srv/.spyglass',
      apiKeys: [],
      trustedProxyCidrs: ['127.0.0.0/8', '::1/128'],
      logLevel: 'info',
      ingest: { maxBodyBytes: 10 * 1024 * 1024, maxBatchSpans: 10_000, commitLanes: 2 },
      rateLimits: { enabled: true, spans: 2000, spansPerMinute: 600_000 },
      monitor: { enabled: true, intervalSeconds: 60, concurrency: 16, concurrencyReserved: 2 },
      live: { keepaliveSeconds: 15, maxClientsPerKey: 50, deliverySharePercent: 10 },
      http: { allowedOrigins: [], headersTimeoutSeconds: 20, maxConnectionsPerAddress: 256 },
      retention: { spansDays: 30, healthDays: 90, partitionsAheadDays: 7 },
      cluster: { name: 'spyglass', leaseSeconds: 10 },
      alerts: { chatWebhook: undefined, consecutiveFailures: 3, latencySpikeMultiplier: 3 },
      costs: { rules: [] },
      graphql: { graphiql: true },
      servers: [],
    });
    expect(c.cluster.instanceId).toMatch(/^.+:\d+:[0-9a-f]{6}$/);
  });

  it('reads YAML and JSON files alike, with numbers and booleans given as text', () => {
    const yaml = [
      'server: { port: "9000" }',
      'ingest: { commit_lanes: 4, otlp_keep_all_spans: yes }',
      'auth: { api_keys: "sg_a, sg_b" }',
      'costs: { rules: [{ tool: "create_*", cost_usd: 0.01 }] }',
      'security: { advisories_path: advisories.json }',
    ].join('\n');
    const json = JSON.stringify({
      server: { port: 9000 },
      ingest: { commit_lanes: 4, otlp_keep_all_spans: true },
      auth: { api_keys: ['sg_a', 'sg_b'] },
      costs: { rules: [{ tool: 'create_*', cost_usd: 0.01 }] },
      security: { advisories_path: 'advisories.json' },
    });
    for (const text of [yaml, json]) {
      const c = parseConfig({}, text, { cwd: '/srv', configPath: '/etc/sg/spyglass.yaml' });
      expect(c.port).toBe(9000);
      expect(c.ingest).toMatchObject({ commitLanes: 4, otlpKeepAllSpans: true });
      expect(c.apiKeys).toEqual(['sg_a', 'sg_b']);
      expect(c.costs.rules).toEqual([{ server: '*', tool: 'create_*', costUsd: 0.01 }]);
      expect(c.security.advisoriesPath).toBe('/etc/sg/advisories.json');
      expect(c.configPath).toBe('/etc/sg/spyglass.yaml');
    }
  });

  it('takes SPYGLASS_<SECTION>_<KEY> over the file, and an empty variable as unset', () => {
    const c = parseConfig(
      {
        SPYGLASS_INGEST_MAX_BODY_BYTES: '2048',
        SPYGLASS_MONITOR_ENABLED: 'off',
        SPYGLASS_HTTP_ALLOWED_ORIGINS: 'https://a.example, https://b.example',
        SPYGLASS_LOG_LEVEL: 'DEBUG',
        SPYGLASS_SERVER_WORKERS: 'auto',
        SPYGLASS_DATABASE_URL: 'postgres://db/sg',
        SPYGLASS_REDIS_URL: 'redis://r:6379',
        SPYGLASS_RETENTION_SPANS_DAYS: '',
        SPYGLASS_DATABASE_WARM_UP: 'false',
      },
      'ingest: { max_body_bytes: 4096, commit_lanes: 3 }\nretention: { spans_days: 7 }\n',
    );
    expect(c.ingest.maxBodyBytes).toBe(2048);
    expect(c.ingest.commitLanes).toBe(3);
    expect(c.monitor.enabled).toBe(false);
    expect(c.http.allowedOrigins).toEqual(['https://a.example', 'https://b.example']);
    expect(c.logLevel).toBe('debug');
    expect(c.workers).toBeGreaterThanOrEqual(1);
    expect(c.retention.spansDays).toBe(7);
    expect(c.databaseWarmUp).toBe(false);
  });

  it('keeps the older variable names as aliases; the rule name wins when both are set', () => {
    const c = parseConfig({
      SPYGLASS_PORT: '7000',
      SPYGLASS_GRPC_PORT: '0',
      SPYGLASS_API_KEYS: 'sg_old',
      SPYGLASS_RATE_LIMITS: 'false',
      SPYGLASS_MAX_BODY_BYTES: '4096',
      SPYGLASS_INSTANCE_ID: 'web-1',
      SPYGLASS_LEASE_SECONDS: '30',
      SPYGLASS_MONITOR: 'off',
      SPYGLASS_ALLOWED_ORIGINS: 'https://a.example',
      SPYGLASS_TRUSTED_PROXY_CIDRS: '10.0.0.0/8',
      SPYGLASS_HOST: '0.0.0.0',
      SPYGLASS_SERVER_HOST: '::',
    });
    expect(c).toMatchObject({
      port: 7000,
      grpcPort: 0,
      host: '::',
      apiKeys: ['sg_old'],
      rateLimits: { enabled: false },
      ingest: { maxBodyBytes: 4096 },
      cluster: { instanceId: 'web-1', leaseSeconds: 30 },
      monitor: { enabled: false },
      http: { allowedOrigins: ['https://a.example'] },
      trustedProxyCidrs: ['10.0.0.0/8'],
    });
  });

  it('names the variable (alias or rule) and the key of a bad value from the environment, all at once', () => {
    const env: Record<string, string> = {};
    const want: string[] = [];
    for (const s of ENV_SETTINGS) {
      if (!['integer', 'number', 'boolean', 'enum', 'union'].includes(kind(s.schema))) continue;
      const name = s.alias[0] ?? s.name;
      env[name] = 'not-a-value';
      want.push(`${name} (${s.path.join('.')}) must be `);
    }
    expect(want.length).toBeGreaterThan(40);
    const got = problems(env);
    expect(got).toHaveLength(want.length);
    for (const [i, w] of want.entries()) expect(got[i]).toContain(w);
    expect(got).toContain(
      'SPYGLASS_RATE_LIMITS (rate_limits.enabled) must be true or false (got "not-a-value")',
    );
  });

  it('names the key of a bad value from the file, with what it got', () => {
    expect(
      problems(
        {},
        [
          'log_level: loud',
          'live: { delivery_share_percent: 51 }',
          'alerts: { latency_spike_multiplier: 1 }',
          'ingest: 5',
          'http: { allowed_origins: [""] }',
          'costs: { rules: [{ server: github, cost_usd: -1 }] }',
        ].join('\n'),
      ),
    ).toEqual([
      'log_level must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
      'ingest must be a mapping (key: value lines under it)',
      'live.delivery_share_percent must be an integer from 1 to 50 (got 51)',
      'http.allowed_origins must be a list of strings (or one comma-separated string) (got [""])',
      'alerts.latency_spike_multiplier must be a number from 1.01 to 1000 (got 1)',
      'costs.rules[0].cost_usd must be a number of dollars per call, 0 or more (got -1)',
    ]);
  });

  it('never repeats a secret setting in a problem', () => {
    expect(problems({}, 'auth: { api_keys: [{ sg_secret: 1 }] }\nmetrics_token: [tok]')).toEqual([
      'metrics_token must be a non-empty string',
      'auth.api_keys must be a list of strings (or one comma-separated string)',
    ]);
  });

  it('reports unknown keys at every level with the known ones, and YAML syntax errors', () => {
    const got = problems(
      {},
      'rate_limit: 1\nmonitor: { enabeld: false }\nservers: [{ name: a, transport: sse, url: "http://x", timout_seconds: 3 }]\n',
    );
    expect(got[0]).toMatch(
      /^\/etc\/spyglass.yaml: unknown key rate_limit \(known top-level keys: data_dir, /,
    );
    expect(got).toContain(
      '/etc/spyglass.yaml: unknown key monitor.enabeld (known keys of monitor: enabled, health_check_interval_seconds, concurrency, concurrency_reserved, max_catalog_servers_per_project, alert_on_every_failure)',
    );
    expect(
      got.some((p) =>
        p.startsWith(
          '/etc/spyglass.yaml: unknown key servers[0].timout_seconds (known keys of servers[]: name, transport,',
        ),
      ),
    ).toBe(true);
    expect(problems({}, 'server: { port: 1\n')[0]).toMatch(/^\/etc\/spyglass.yaml: /);
    expect(problems({}, '- 1\n')).toEqual(['/etc/spyglass.yaml: the top level must be a mapping']);
    // Not silently taken as a prototype: reported like any other unknown key.
    expect(problems({}, 'ingest: { __proto__: { max_body_bytes: 1 } }')[0]).toMatch(
      /^\/etc\/spyglass.yaml: unknown key ingest.__proto__ \(known keys of ingest: /,
    );
  });

  it('validates servers[] at load, interval and timeout included', () => {
    const c = parseConfig(
      {},
      [
        'servers:',
        '  - { name: a, transport: stdio, command: x, health_check_interval_seconds: 300, timeout_seconds: 2.5 }',
        '  - { name: b, transport: sse, url: "http://b/sse", health_check_timeout_seconds: 10, timeout_seconds: 1 }',
      ].join('\n'),
    );
    expect(c.servers.map((s) => [s.name, s.intervalSeconds, s.timeoutSeconds])).toEqual([
      ['a', 300, 2.5],
      ['b', undefined, 10],
    ]);
    expect(
      problems(
        {},
        [
          'servers:',
          '  - { name: a, transport: stdio, command: x, health_check_interval_seconds: 0 }',
          '  - { name: b, transport: sse, timeout_seconds: "soon" }',
          '  - { name: c, transport: pigeon, command: x }',
          '  - { transport: stdio, command: x }',
          '  - { name: c2, transport: stdio }',
          '  - { name: c2, transport: sse, url: "http://c" }',
          '  - { name: d, transport: stdio, command: x, env: { A: { b: 1 } } }',
        ].join('\n'),
      ),
    ).toEqual([
      'servers[0].health_check_interval_seconds must be an integer from 1 to 86400 (got 0)',
      'servers[1].timeout_seconds must be a number from 0.1 to 3600 (got "soon")',
      'servers[2].transport must be one of stdio, sse, streamable_http (got "pigeon")',
      'servers[3].name is required',
      'servers[6].env must be a mapping of names to strings',
      'servers[0].command is required for stdio',
      'servers[1].name "c2" is used twice',
    ]);
  });

  it('checks the rules between settings once each is valid, with the other problems', () => {
    expect(
      problems({
        SPYGLASS_PORT: '4999',
        SPYGLASS_SERVER_GRPC_PORT: '4999',
        SPYGLASS_LOG_LEVEL: 'x',
      }),
    ).toEqual([
      'SPYGLASS_LOG_LEVEL (log_level) must be one of fatal, error, warn, info, debug, trace, silent (got "x")',
      'SPYGLASS_PORT and SPYGLASS_SERVER_GRPC_PORT are both 4999; HTTP and OTLP/gRPC need different ports',
    ]);
    expect(problems({}, 'monitor: { concurrency: 4, concurrency_reserved: 4 }')).toEqual([
      'monitor.concurrency_reserved must be less than monitor.concurrency',
    ]);
    expect(problems({ SPYGLASS_WORKERS: '2' })).toEqual([
      'SPYGLASS_WORKERS above 1 needs SPYGLASS_REDIS_URL (rate limits and live events are shared through Redis)',
      'SPYGLASS_WORKERS above 1 needs SPYGLASS_DATABASE_URL (the embedded database belongs to one process)',
    ]);
  });

  it('serves GraphiQL unless NODE_ENV=production, and graphql.graphiql decides when set', () => {
    expect(parseConfig({}, undefined).graphql.graphiql).toBe(true);
    expect(parseConfig({ NODE_ENV: 'production' }, undefined).graphql.graphiql).toBe(false);
    expect(
      parseConfig({ NODE_ENV: 'production', SPYGLASS_GRAPHQL_GRAPHIQL: 'on' }, undefined).graphql
        .graphiql,
    ).toBe(true);
    expect(parseConfig({}, 'graphql: { graphiql: false }').graphql.graphiql).toBe(false);
  });

  it("keeps the file's chat webhook apart from the environment's (the file's is used first)", () => {
    const both = parseConfig(
      { SPYGLASS_CHAT_WEBHOOK: 'https://hooks.example/env' },
      'alerts: { chat_webhook: "https://hooks.example/file" }',
    );
    expect(both.alerts.chatWebhook).toBe('https://hooks.example/file');
    const envOnly = parseConfig({ SPYGLASS_ALERTS_CHAT_WEBHOOK: 'https://hooks.example/env' }, '');
    expect(envOnly.chatWebhook).toBe('https://hooks.example/env');
    expect(envOnly.alerts.chatWebhook).toBeUndefined();
  });

  it('gives every setting one environment name, none shared', () => {
    const names = ENV_SETTINGS.flatMap((s) => [s.name, ...s.alias]);
    expect(new Set(names).size).toBe(names.length);
    for (const s of ENV_SETTINGS) expect(s.name).toBe(`SPYGLASS_${s.path.join('_').toUpperCase()}`);
  });
});
