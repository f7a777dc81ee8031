import { createRequire } from 'node:module';
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
    reporters: ['default'],
  },
});
