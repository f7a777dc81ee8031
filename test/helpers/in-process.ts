import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { createServices, type Services } from '../../src/services.ts';
import { openStore } from '../../src/store/open-store.ts';
import { seedPglite } from './data-dir.ts';
import { inProcessUrl, injectFetch, type PathFetch } from './inject-fetch.ts';
import { pooledPgliteStore } from './store-pool.ts';

/** `fetch(path, init)` answers through app.inject() (test/helpers/inject-fetch.ts). */
export interface InProcessApp extends PathFetch {
  app: FastifyInstance;
  services: Services;
  /**
   * `inproc://<n>`: helpers that take a server's URL (call, getJson, postJson, fetchUrl) answer it
   * through app.inject() too.
   */
  httpUrl: string;
  /** POST /graphql through app.inject(): the JSON answer. */
  gql(query: string, variables?: Record<string, unknown>, apiKey?: string): Promise<any>;
  /** Closes the app, the services and the store, and removes the data directory. */
  close(): Promise<void>;
}

/**
 * The real app and services on a real store (a copy of the run's migrated PGlite, or PostgreSQL when
 * `SPYGLASS_DATABASE_URL` is given), called with `app.inject()`: no socket, no background jobs.
 */
export async function startInProcessApp(
  env: Record<string, string> = {},
  logger?: Logger,
  opts: { fresh?: boolean } = {},
): Promise<InProcessApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'spyglass-inproc-'));
  // PGlite comes from the worker's pool (test/helpers/store-pool.ts) unless `fresh` asks for a
  // store opened as a server first opens it.
  const pooled = !env.SPYGLASS_DATABASE_URL && !opts.fresh;
  if (!env.SPYGLASS_DATABASE_URL && !pooled) seedPglite(dataDir);
  const config = loadConfig(
    { SPYGLASS_DATA_DIR: dataDir, SPYGLASS_GRPC_PORT: '0', ...env },
    dataDir,
  );
  const store = pooled
    ? await pooledPgliteStore()
    : await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, migrate: true });
  const services = await createServices(
    config,
    store,
    logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
  );
  const app = await buildApp(services);
  await app.ready();
  const fetch = injectFetch(app);
  const url = inProcessUrl(fetch);
  return {
    app,
    services,
    httpUrl: url.url,
    fetch,
    gql: async (query, variables = {}, apiKey) => {
      const res = await app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
        payload: JSON.stringify({ query, variables }),
      });
      return res.json();
    },
    close: async () => {
      url.forget();
      await app.close();
      await services.close();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
