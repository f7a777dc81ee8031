import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { findPgBin, startPgCluster, type PgCluster } from './helpers/pg-cluster.ts';
import { findRedisServer, startRedis, type RedisServer } from './helpers/redis.ts';
import { buildIfStale, buildUiIfStale, compileFixtureScripts } from './helpers/build.ts';

/**
 * Shared back ends for the whole test run, started once and handed to test files with
 * `inject(...)` (see test/helpers/backends.ts):
 *
 * - PostgreSQL: one throwaway cluster (test/helpers/pg-cluster.ts); test files create their own
 *   database on it. Without a PostgreSQL server the PostgreSQL variants are skipped locally, but a
 *   CI run (CI set) fails: CI must exercise both storage back ends.
 * - Redis: one throwaway redis-server (test/helpers/redis.ts: loopback, free port, temp dir, no
 *   persistence), provided as `redisUrl`. Tests needing it skip locally without redis-server; a CI
 *   run fails instead (.ci/run installs it).
 */
declare module 'vitest' {
  export interface ProvidedContext {
    /** postgres://… superuser URL of the shared cluster, or null when PostgreSQL is not installed. */
    pgAdminUrl: string | null;
    /** redis://… URL of the shared redis-server, or null when Redis is not installed. */
    redisUrl: string | null;
    /** A migrated PGlite directory that test servers start from as a copy (see test/helpers/server.ts). */
    pgliteTemplate: string;
    /** test/fixtures/mcp/*.ts compiled to JavaScript (see test/helpers/fixture-scripts.ts). */
    fixtureScripts: string;
  }
}

const isCi = (): boolean => {
  const ci = process.env.CI;
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
};

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Tests run the compiled CLI (bin/spyglass.js -> dist/) and SDK (dist/sdk) as users do; rebuild
  // them when a source is newer than the last build.
  await buildIfStale();
  // The dashboard (dist/ui) that the server serves at / and the browser tests drive.
  await buildUiIfStale();
  const fixtureScripts = compileFixtureScripts();
  project.provide('fixtureScripts', fixtureScripts);
  let cluster: PgCluster | null = null;
  if (findPgBin() === null) {
    const msg = 'no PostgreSQL server found (/usr/lib/postgresql/<version>/bin or PG_BIN)';
    if (isCi())
      throw new Error(
        `${msg}: CI must test both storage back ends; install postgresql (.ci/run does)`,
      );
    process.stderr.write(
      `\n[spyglass tests] NOTE: ${msg}; the PostgreSQL variants of the tests are SKIPPED.\n\n`,
    );
    project.provide('pgAdminUrl', null);
  } else {
    try {
      cluster = await startPgCluster();
    } catch (err) {
      const msg = `could not start the test PostgreSQL cluster: ${(err as Error).message}`;
      if (isCi()) throw new Error(msg, { cause: err });
      process.stderr.write(
        `\n[spyglass tests] NOTE: ${msg}\nthe PostgreSQL variants of the tests are SKIPPED.\n\n`,
      );
    }
    project.provide('pgAdminUrl', cluster?.adminUrl ?? null);
  }

  let redis: RedisServer | null = null;
  try {
    if (findRedisServer() === null) {
      const msg = 'no redis-server found (PATH or REDIS_SERVER)';
      if (isCi())
        throw new Error(
          `${msg}: CI must test shared rate limits; install redis-server (.ci/run does)`,
        );
      process.stderr.write(
        `\n[spyglass tests] NOTE: ${msg}; the Redis variants of the tests are SKIPPED.\n\n`,
      );
    } else {
      try {
        redis = await startRedis();
      } catch (err) {
        const msg = `could not start the test redis-server: ${(err as Error).message}`;
        if (isCi()) throw new Error(msg, { cause: err });
        process.stderr.write(
          `\n[spyglass tests] NOTE: ${msg}\nthe Redis variants of the tests are SKIPPED.\n\n`,
        );
      }
    }
  } catch (err) {
    await cluster?.stop();
    throw err;
  }
  project.provide('redisUrl', redis?.url ?? null);

  // initdb and the migrations cost a test server seconds of CPU each start on a busy 2-core
  // machine; done once here, every startTestServer copies the result (the store's first-start
  // paths are still covered by the tests that start the CLI or the server on an empty directory,
  // which copy the build's template, and by test/store/pglite-template.test.ts, which runs initdb).
  // In a plain Node child: the store's own first-start path (it resolves PGlite with import.meta.resolve,
  // which vitest's module runner lacks).
  const template = mkdtempSync(join(tmpdir(), 'spyglass-pglite-template-'));
  const store = pathToFileURL(join(import.meta.dirname, '../dist/store/open-store.js')).href;
  const script = `const { openStore } = await import(${JSON.stringify(store)}); await (await openStore({ dataDir: ${JSON.stringify(template)} })).close();`;
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    timeout: 180_000,
  });
  project.provide('pgliteTemplate', join(template, 'pglite'));

  return async () => {
    rmSync(template, { recursive: true, force: true });
    rmSync(fixtureScripts, { recursive: true, force: true });
    await redis?.stop();
    await cluster?.stop();
  };
}
