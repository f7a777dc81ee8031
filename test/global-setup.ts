import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { findPgBin, startPgCluster, type PgCluster } from './helpers/pg-cluster.ts';
import { findRedisServer, startRedis, type RedisServer } from './helpers/redis.ts';
import { buildIfStale, buildUiIfStale, compileFixtureScripts } from './helpers/build.ts';
import { useRamTempDir } from './helpers/ram-tmp.ts';
import { migrationsHash, TEMPLATE_DIR, templateIsCurrent } from '../src/store/pglite-template.ts';
import { MIGRATIONS, openStore } from '../src/store/open-store.ts';

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
    /** A migrated database on that cluster that test databases are created from (createMigratedPgDatabase). */
    pgTemplateDb: string | null;
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
  // Before anything makes a temp dir: servers' data directories in RAM (see ram-tmp.ts).
  const ramTmp = useRamTempDir();
  // Tests run the compiled CLI (bin/spyglass.js -> dist/) and SDK (dist/sdk) as users do; rebuild
  // them when a source is newer than the last build.
  await buildIfStale();
  // The rest is independent (each a child process or two): started together, they take the time of
  // the slowest instead of the sum. Whatever started is stopped again when one of them fails.
  const settled = await Promise.allSettled([
    compileFixtureScripts(),
    // The dashboard (dist/ui) that the server serves at / and the browser tests drive.
    buildUiIfStale(),
    startPostgres().then(async (cluster) => {
      if (cluster) await migratedTemplateDb(cluster.adminUrl);
      return cluster;
    }),
    startRedisServer(),
    makePgliteTemplate(),
  ] as const);
  const [fixtures, , pg, redis, template] = settled;
  const fixtureScripts = fixtures.status === 'fulfilled' ? fixtures.value : null;
  const cluster = pg.status === 'fulfilled' ? pg.value : null;
  const redisServer = redis.status === 'fulfilled' ? redis.value : null;
  const templateDir = template.status === 'fulfilled' ? template.value : null;
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed || templateDir === null || fixtureScripts === null) {
    await Promise.allSettled([cluster?.stop(), redisServer?.stop()]);
    if (fixtureScripts) rmSync(fixtureScripts, { recursive: true, force: true });
    if (ramTmp) rmSync(ramTmp, { recursive: true, force: true });
    throw failed?.reason;
  }
  project.provide('fixtureScripts', fixtureScripts);
  project.provide('pgAdminUrl', cluster?.adminUrl ?? null);
  project.provide('pgTemplateDb', cluster ? PG_TEMPLATE_DB : null);
  project.provide('redisUrl', redisServer?.url ?? null);
  project.provide('pgliteTemplate', join(templateDir, 'pglite'));

  return async () => {
    rmSync(fixtureScripts, { recursive: true, force: true });
    await redisServer?.stop();
    await cluster?.stop();
    if (ramTmp) rmSync(ramTmp, { recursive: true, force: true });
  };
}

/** The shared PostgreSQL cluster, or null (with a note) where none is installed outside CI. */
async function startPostgres(): Promise<PgCluster | null> {
  if (findPgBin() === null) {
    const msg = 'no PostgreSQL server found (/usr/lib/postgresql/<version>/bin or PG_BIN)';
    if (isCi())
      throw new Error(
        `${msg}: CI must test both storage back ends; install postgresql (.ci/run does)`,
      );
    process.stderr.write(
      `\n[spyglass tests] NOTE: ${msg}; the PostgreSQL variants of the tests are SKIPPED.\n\n`,
    );
    return null;
  }
  try {
    return await startPgCluster();
  } catch (err) {
    const msg = `could not start the test PostgreSQL cluster: ${(err as Error).message}`;
    if (isCi()) throw new Error(msg, { cause: err });
    process.stderr.write(
      `\n[spyglass tests] NOTE: ${msg}\nthe PostgreSQL variants of the tests are SKIPPED.\n\n`,
    );
    return null;
  }
}

const PG_TEMPLATE_DB = 'spyglass_migrated';

/**
 * A database on the shared cluster with every migration applied, made once per run: a test database
 * created from it (`create database … template`, test/helpers/backends.ts) takes a fifth of the time
 * of an empty one that its first store then migrates. Nothing stays connected to it (PostgreSQL
 * copies a template only while no session uses it).
 */
async function migratedTemplateDb(adminUrl: string): Promise<void> {
  const { default: postgres } = await import('postgres');
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    await admin.unsafe(`create database "${PG_TEMPLATE_DB}"`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = new URL(adminUrl);
  url.pathname = `/${PG_TEMPLATE_DB}`;
  const store = await openStore({ databaseUrl: url.toString(), dataDir: '', poolSize: 1 });
  await store.close();
}

/** The shared redis-server, or null (with a note) where none is installed outside CI. */
async function startRedisServer(): Promise<RedisServer | null> {
  if (findRedisServer() === null) {
    const msg = 'no redis-server found (PATH or REDIS_SERVER)';
    if (isCi())
      throw new Error(
        `${msg}: CI must test shared rate limits; install redis-server (.ci/run does)`,
      );
    process.stderr.write(
      `\n[spyglass tests] NOTE: ${msg}; the Redis variants of the tests are SKIPPED.\n\n`,
    );
    return null;
  }
  try {
    return await startRedis();
  } catch (err) {
    const msg = `could not start the test redis-server: ${(err as Error).message}`;
    if (isCi()) throw new Error(msg, { cause: err });
    process.stderr.write(
      `\n[spyglass tests] NOTE: ${msg}\nthe Redis variants of the tests are SKIPPED.\n\n`,
    );
    return null;
  }
}

/**
 * initdb and the migrations cost a test server seconds of CPU each start on a busy 2-core machine:
 * every startTestServer copies a migrated directory instead, the one the build makes for a first
 * `spyglass serve` (dist/pglite-template/, src/store/pglite-template.ts). Its script remakes it
 * here when the migrations or PGlite changed since the build, and does nothing otherwise. The
 * store's first-start paths stay covered by the tests that start the CLI or the server on an empty
 * directory, and by test/store/pglite-template.test.ts, which runs initdb. Returns the directory
 * holding `pglite/`, which the tests only copy. The script's own check runs here first: a current
 * template (the usual case) then costs no Node process with tsx (about 1 s of CPU at the start).
 */
async function makePgliteTemplate(): Promise<string> {
  if (templateIsCurrent(migrationsHash(MIGRATIONS))) return TEMPLATE_DIR;
  const script = join(import.meta.dirname, '../scripts/pglite-template.ts');
  await promisify(execFile)(process.execPath, ['--import', 'tsx', script], { timeout: 180_000 });
  return TEMPLATE_DIR;
}
