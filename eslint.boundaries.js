// The direction of the data flow, checked by lint (docs/architecture.md):
//   receivers -> normalize -> ingest -> store -> services -> graphql / rest / cli
// store/ imports no service or adapter, a service imports no adapter, an adapter imports no other
// adapter nor a store repository, http/ (the HTTP plumbing the adapters share) imports no adapter, and server code imports nothing of the client SDK (the sdk/ package), which imports
// nothing of the server. An import against these rules fails `npm run check`.

/** The folders under src/ by layer. A new folder must be added to one of these lists. */
export const ADAPTERS = ['rest', 'graphql', 'cli', 'receivers'];
/** Just below the adapters: Fastify hooks, error handler, route schemas that REST, GraphQL and the receivers share. */
export const HTTP = ['http'];
export const BASE = ['model', 'config', 'metrics', 'net'];
export const STORE = ['store'];
export const SERVICES = [
  'alerts',
  'anomalies',
  'audit',
  'auth',
  'catalog',
  'compose',
  'costs',
  'health',
  'ingest',
  'live',
  'normalize',
  'prevention',
  'projects',
  'scale',
  'scoring',
  'security',
  'sessions',
  'settings',
  'slos',
  'startup',
  'traces',
  'users',
];

// Relative specifiers only: `graphql` or `@modelcontextprotocol/sdk` are packages, not our folders.
const rel = (dir) =>
  ['.', '..', '../..', '../../..'].flatMap((up) => [`${up}/${dir}`, `${up}/${dir}/**`]);
const forbid = (dirs, message) => ({ group: dirs.flatMap(rel), message });

// From src/<folder>/… the SDK package is ../../sdk (deeper files: more ../).
const serverNotSdk = {
  group: ['../../sdk', '../../sdk/**', '../../../sdk', '../../../sdk/**', '../../../../sdk/**'],
  message:
    'Server code must not import the client SDK (sdk/): shared shapes live in src/model/, held equal by test/sdk/contract.test.ts.',
};
const noAdapters = forbid(
  [...ADAPTERS, ...HTTP],
  'Services and the store must not import an adapter (rest, graphql, cli, receivers) or http/, the plumbing the adapters share.',
);

// Adapters (and http/ below them) reach stored data through a service, which owns authorization
// and returns domain types: they may name the store's plumbing (the Store type, read routing,
// error text) but not a repository or a table.
const noRepositories = {
  group: ['..', '../..', '../../..'].flatMap((up) => [
    `${up}/store/*-repo*`,
    `${up}/store/schema*`,
  ]),
  message:
    'An adapter reaches stored data through a service (src/<capability>/), not a store/ repository or table: services own authorization and return domain types (src/model/).',
};

const rule = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
const inside = (dirs) => dirs.map((d) => `src/${d}/**/*.ts`);

export const boundaries = [
  {
    files: inside(BASE),
    rules: rule(
      forbid(
        [...STORE, ...SERVICES, ...HTTP, ...ADAPTERS],
        'model/, config/, metrics/ and net/ are the base: they import no store, service, http/ or adapter.',
      ),
      serverNotSdk,
    ),
  },
  {
    files: inside(STORE),
    rules: rule(
      forbid(SERVICES, 'store/ must not import a service: take domain types from src/model/.'),
      noAdapters,
      serverNotSdk,
    ),
  },
  { files: inside(SERVICES), rules: rule(noAdapters, serverNotSdk) },
  {
    files: inside(HTTP),
    rules: rule(
      forbid(
        ADAPTERS,
        'http/ sits below the adapters (rest, graphql, cli, receivers): it must not import one.',
      ),
      noRepositories,
      serverNotSdk,
    ),
  },
  ...ADAPTERS.map((adapter) => ({
    files: inside([adapter]),
    rules: rule(
      forbid(
        ADAPTERS.filter((a) => a !== adapter),
        'An adapter must not import another adapter: move the shared piece below the adapters.',
      ),
      noRepositories,
      serverNotSdk,
    ),
  })),
  // The SDK is a package of its own: nothing outside sdk/src/.
  {
    files: ['sdk/src/*.ts'],
    rules: rule({ group: ['../*', '../**'], message: 'The SDK must not import server code.' }),
  },
  {
    files: ['sdk/src/*/*.ts'],
    rules: rule({
      group: ['../../*', '../../**'],
      message: 'The SDK must not import server code.',
    }),
  },
];
