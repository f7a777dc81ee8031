import { afterAll } from 'vitest';
import { killInstances } from './helpers/instance.ts';

/**
 * Every test file's setup (vitest.config.ts): after the file, the `spyglass serve` processes its
 * tests started with spawnInstance (test/helpers/instance.ts) and did not stop are killed. A setup
 * file runs for each file; a helper module is imported once per worker.
 */
afterAll(killInstances);
