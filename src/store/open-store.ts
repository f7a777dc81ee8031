import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { Db } from './db.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { guardPostgresDriver } from './postgres-guard.ts';
import * as schema from './schema.ts';

export interface Store {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Resolves when the database answers; used by readiness. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** postgres:// URL; when absent an embedded PGlite database lives in `dataDir`. */
  databaseUrl?: string | undefined;
  /** PGlite directory parent; `memory://` keeps PGlite in memory (tests). */
  dataDir: string;
  /** Connections to PostgreSQL. */
  poolSize?: number;
  /** Where the store reports conditions it recovered from. */
  onWarning?: (message: string) => void;
}

const MIGRATIONS = resolve(dirname(fileURLToPath(import.meta.url)), '../../drizzle');

/** Opens the database and applies pending migrations from drizzle/ (both back ends). */
export async function openStore(opts: StoreOptions): Promise<Store> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl, opts.poolSize ?? 10, opts.onWarning ?? (() => {})) : openPglite(opts.dataDir);
}

async function openPostgres(url: string, max: number, warn: (message: string) => void): Promise<Store> {
  const { default: postgres } = await import('postgres');
  const { drizzle } = await import('drizzle-orm/postgres-js');
  const { migrate } = await import('drizzle-orm/postgres-js/migrator');
  const client = postgres(url, { max, onnotice: () => {}, connect_timeout: 10, idle_timeout: 60 });
  const db = drizzle(client, { schema }) as unknown as Db;
  const unguard = guardPostgresDriver(warn);
  try {
    await migrate(drizzle(client, { schema }), { migrationsFolder: MIGRATIONS });
  } catch (err) {
    await client.end({ timeout: 1 });
    unguard();
    throw err;
  }
  return {
    db,
    kind: 'postgres',
    ping: (timeoutMs = 2000) => withTimeout(db.execute(sql`select 1`), timeoutMs),
    close: async () => {
      await client.end({ timeout: 5 });
      unguard();
    },
  };
}

async function openPglite(dataDir: string): Promise<Store> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  let dir = dataDir;
  let unlock = () => {};
  if (!dataDir.startsWith('memory://')) {
    dir = join(dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
    unlock = lockDataDir(dataDir);
  }
  let client: InstanceType<typeof PGlite> | undefined;
  try {
    client = await PGlite.create(dir);
    await migrate(drizzle(client, { schema }), { migrationsFolder: MIGRATIONS });
  } catch (err) {
    await client?.close();
    unlock();
    throw err;
  }
  const pg = client;
  const db = drizzle(pg, { schema });
  return {
    db: db as unknown as Db,
    kind: 'pglite',
    ping: (timeoutMs = 2000) => withTimeout(pg.query('select 1'), timeoutMs),
    close: async () => {
      await pg.close();
      unlock();
    },
  };
}

async function withTimeout(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`database did not answer within ${ms} ms`)), ms);
  });
  try {
    await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
