import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { Db } from '../../src/store/db.ts';
import { openStore, type Store } from '../../src/store/open-store.ts';
import { createMigratedPgDatabase, type Backend } from './backends.ts';
import { pooledPgliteStore } from './store-pool.ts';

/**
 * The store of one back end for a repository suite (test/store/repos/), opened directly with the
 * real driver as the server opens it (src/store/open-store.ts): a PGlite with the migrated
 * template's contents from the worker's pool (store-pool.ts), or a fresh migrated database on the
 * shared PostgreSQL. No server, no HTTP. Call inside a
 * `describe.runIf(available)` of `describe.each(backends)`; tests share the store and keep apart by
 * project (`project()` gives a fresh id).
 */
export function useRepoStore(name: Backend['name']): () => Db {
  let store: Store | undefined;
  beforeAll(async () => {
    store =
      name === 'postgres'
        ? await openStore({
            databaseUrl: await createMigratedPgDatabase(),
            dataDir: '',
            poolSize: 4,
          })
        : await pooledPgliteStore();
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });
  return () => {
    if (!store) throw new Error('the store is not open (beforeAll failed)');
    return store.db;
  };
}

/** A project id no other test uses. */
export const project = (label = 'p'): string => `${label}-${randomUUID().slice(0, 8)}`;

/** Text PostgreSQL refuses (NUL, a lone surrogate, the escape marker) amid quoting and LIKE characters. */
export const HOSTILE = `a\u0000b'"\\%_\uD800\u{10FFFD}000041;drop table x;--é😀`;

/** The top of the current hour minus `hours`. */
export function hourAgo(hours: number, now = Date.now()): Date {
  return new Date(Math.floor(now / 3_600_000) * 3_600_000 - hours * 3_600_000);
}
