import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/longest-first.ts';
import { isDroppedTypesQuery } from './src/store/pg-types-guard.ts';
import { isDriverNullSocket } from './src/store/postgres-guard.ts';

const require = createRequire(import.meta.url);

export default defineConfig({
  // graphql 16 ships ESM and CJS builds; Vite would pick the ESM one for our sources while
  // node_modules (Pothos, yoga) load the CJS one, giving two copies. Pin the one Node uses.
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  test: {
    include: ['test/**/*.test.ts'],
    // One PostgreSQL cluster (and later one Redis) for the whole run; see test/global-setup.ts.
    globalSetup: ['test/global-setup.ts'],
    // Cheaper password hashing in the test process, and the spawned servers a file left running
    // killed after it (see the files).
    setupFiles: ['test/setup-password-cost.ts', 'test/setup-instances.ts'],
    testTimeout: 30_000,
    // expect.poll waits on what a user would see happen (a page updating, a delivery arriving):
    // vitest's default gives up after 1 s, which a loaded machine outlasts (a run at load 25 failed
    // an agent page's table that was only slow). A poll that passes returns as soon as it passes,
    // so only a failure waits the longer timeout.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 60_000,
    pool: 'forks',
    // Each worker process runs file after file with the modules it has loaded: a fresh process and
    // module graph per file cost 3-4 s of imports each, about a third of the suite's wall time on
    // 2 cores (766 s isolated, 537 s not). Test files therefore must not rely on a fresh process:
    // each starts and closes its own servers, and a file that fakes timers or resets modules undoes
    // it in afterEach.
    isolate: false,
    // Much test time is spent waiting on servers, sockets, browsers and child processes: one
    // worker more than cores (vitest's default is cores - 1, so one on a 2-core CI machine). On 2
    // cores with 2 workers the files' times summed to 1.46× the wall time, the CPU 80% busy; 3
    // workers took the quiet clean-clone run from 441 s to 384 s (2026-11-27).
    maxWorkers: availableParallelism() + 1,
    // Longest files first, on a clean clone too (test/longest-first.ts).
    sequence: { sequencer: LongestFirst },
    reporters: ['default'],
    // postgres.js's known escapes after a connection closed, which in-process servers of the
    // PostgreSQL outage tests can meet: the dropped array-types rejection (src/store/pg-types-guard.ts)
    // and the write to a null socket (src/store/postgres-guard.ts). `spyglass serve` installs both
    // guards and logs them; tests build stores without the process-wide guards.
    onUnhandledError: (err) => !isDroppedTypesQuery(err) && !isDriverNullSocket(err),
  },
});
