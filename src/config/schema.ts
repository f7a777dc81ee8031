import { Type as T, type Static } from 'typebox';
import { bool, int, list, optStr, section, str } from './schema-kit.ts';
import { COSTS, SERVERS } from './schema-entries.ts';
import { CLUSTER, LIMITS, SECURITY } from './schema-sections.ts';

/**
 * The one schema of the configuration (docs/configuration.md is generated from it): what
 * spyglass.yaml may contain, each setting's type, range and default, and its environment
 * variable. Every scalar (and comma-separated list) setting has `SPYGLASS_<SECTION>_<KEY>`
 * (`SPYGLASS_<KEY>` at the top level); `alias` lists older names that keep working.
 * Adding a setting: add it here with a default and a description; read it in to-config.ts.
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const Server = section(
  {
    host: str('127.0.0.1', { description: 'HTTP listen address', alias: ['SPYGLASS_HOST'] }),
    port: int(0, 65535, 8000, { description: 'HTTP port', alias: ['SPYGLASS_PORT'] }),
    grpc_port: int(0, 65535, 4317, {
      description: 'OTLP/gRPC port; 0 turns the gRPC receiver off',
      alias: ['SPYGLASS_GRPC_PORT'],
    }),
    workers: T.Union([T.Integer({ minimum: 1, maximum: 64 }), T.Literal('auto')], {
      default: 1,
      description:
        'HTTP+gRPC worker processes (docs/deploy.md); `auto` = one per core; above 1 needs Redis and PostgreSQL',
      expect: 'an integer from 1 to 64 or auto',
      alias: ['SPYGLASS_WORKERS'],
    }),
  },
  'Listeners and worker processes',
);

const Database = section(
  {
    url: optStr({
      description: '`postgres://…` selects PostgreSQL; unset = embedded PGlite in `data_dir`',
      secret: true,
      expect: 'a postgres:// or postgresql:// URL',
    }),
    read_url: optStr({
      description: 'a streaming replica read-only routes go to (docs/deploy.md); needs `url`',
      secret: true,
      expect: 'a postgres:// or postgresql:// URL',
    }),
    warm_up: bool(true, {
      description:
        "on PostgreSQL, once listening: open the reads' pool and the writer's connections and run the hot statements on each in the background, so the first requests do not pay a connection's first reads (docs/deploy.md)",
    }),
  },
  'Storage',
);

const Auth = section(
  {
    api_keys: list({
      description: 'bootstrap keys, each a global admin',
      secret: true,
      alias: ['SPYGLASS_API_KEYS'],
    }),
    trusted_proxy_cidrs: list(
      {
        description: 'proxies whose `X-User-*` / `X-Forwarded-For` count (IPs or CIDRs)',
        alias: ['SPYGLASS_TRUSTED_PROXY_CIDRS'],
      },
      ['127.0.0.0/8', '::1/128'],
    ),
  },
  'Authentication (docs/auth.md)',
);

const Graphql = section(
  {
    graphiql: T.Optional(
      T.Boolean({
        description: 'serve GraphiQL to browsers at /graphql (docs/api.md)',
        computed: 'on unless `NODE_ENV=production`',
      }),
    ),
  },
  'GraphQL (docs/api.md)',
);

export const ConfigSchema = T.Object(
  {
    data_dir: str('.spyglass', {
      description: 'PGlite files and local state (relative to the working directory)',
    }),
    log_level: T.Enum([...LOG_LEVELS], {
      default: 'info',
      description: 'logs are JSON on stderr',
    }),
    metrics_token: optStr({
      description: 'bearer token for /metrics (unset: /metrics answers 404)',
      secret: true,
    }),
    server: Server,
    database: Database,
    redis: section(
      {
        url: optStr({
          description: 'shared rate limits, live events and leases across processes',
          secret: true,
        }),
      },
      'Redis (docs/deploy.md)',
    ),
    auth: Auth,
    cluster: CLUSTER,
    ...LIMITS,
    graphql: Graphql,
    security: SECURITY,
    costs: COSTS,
    servers: SERVERS,
  },
  { additionalProperties: false },
);

/** spyglass.yaml after defaults, merged with the environment and validated. */
export type FileConfig = Static<typeof ConfigSchema>;
