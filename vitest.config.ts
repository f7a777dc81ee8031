import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  // graphql 16 ships ESM and CJS builds; Vite would pick the ESM one for our sources while
  // node_modules (Pothos, yoga) load the CJS one, giving two copies. Pin the one Node uses.
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  test: {
    include: ['test/**/*.test.ts'],
    // One PostgreSQL cluster (and later one Redis) for the whole run; see test/global-setup.ts.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most test time is spent waiting on servers, sockets and child processes, not computing:
    // one worker per core instead of vitest's default (cores - 1, so one on a 2-core CI machine).
    maxWorkers: Math.max(2, availableParallelism()),
    reporters: ['default'],
  },
});
