import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import type { Options, Sql } from 'postgres';
import { packagePath } from '../package-root.ts';
import { connectError } from './connect-error.ts';
import { noDelayOption } from './pg-socket.ts';
import type { Db } from './db.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { readTimesExactly } from './pg-time.ts';
import { copyTemplate, usableTemplate } from './pglite-template.ts';
import { startPgliteThread, type PgliteThread } from './pglite-thread.ts';
import { routingDb } from './read-routing.ts';
import * as schema from './schema.ts';

export interface Store {
  db: Db;
  kind: 'pglite' | 'postgres';
  /**
   * The primary's postgres.js client (on PGlite its one connection to the database's thread), for
   * the ingest commit's prepared statements and COPY (span-copy.ts).
   */
  client: Sql;
  /**
   * The writer's client (compose/ingest.ts spanCommit): on PostgreSQL a pool of its own of
   * `writerConnections` connections (the commit lanes), apart from the reads' pool; on PGlite the
   * one client. Each group commit's statements are prepared and planned on the connection that
   * runs them: on the shared pool of 10, whose idle connections postgres.js hands out in turn,
   * every commit went to another connection, which parsed the upsert and loaded its tables'
   * catalog entries once more and planned it afresh (docs/benchmarks.md, the writer's plans).
   */
  writer: Sql;
  /** Connections the writer's pool opens at most (1 on PGlite: the same client). */
  writerConnections: number;
  /**
   * PGlite only: COPY through its thread, which does not speak COPY's sub-protocol
   * (pglite-thread.ts copyIn).
   */
  pgliteCopyIn?: PgliteThread['copyIn'];
  /**
   * Connections the reads' pool opens at most (the read replica's, when there is one): warmReads
   * warms that many (warm-reads.ts). 1 on PGlite.
   */
  readConnections: number;
  /** Resolves when the database answers; used by readiness. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** postgres:// URL; when absent an embedded PGlite database lives in `dataDir`. */
  databaseUrl?: string | undefined;
  /**
   * postgres:// URL of a read replica (or a read-only role): read-only routes query it (see
   * read-routing.ts). Only with databaseUrl; migrations always run on the primary.
   */
  databaseReadUrl?: string | undefined;
  /** PGlite directory parent; `memory://` keeps PGlite in memory (tests). */
  dataDir: string;
  /** Connections to PostgreSQL. */
  poolSize?: number;
  /**
   * The writer's own connections to PostgreSQL besides the pool (default 2): one per commit lane,
   * each runs one group commit at a time (ingest.commit_lanes).
   */
  writerConnections?: number;
  /** Where the store says what it is doing when that takes a while (creating the embedded database). */
  onInfo?: (message: string) => void;
  /** False when another process already applied the migrations (a cluster worker). Default true. */
  migrate?: boolean;
  /**
   * PGlite: the migrated data directory a first start copies (pglite-template.ts); default the
   * build's; null runs initdb (the build making the template does).
   */
  template?: string | null;
}

/** The migrations folder (drizzle/ at the repository's root). */
export const MIGRATIONS = packagePath('drizzle');

/** Opens the database and applies pending migrations from drizzle/ (both back ends). */
export async function openStore(opts: StoreOptions): Promise<Store> {
  return opts.databaseUrl
    ? openPostgres(
        opts.databaseUrl,
        opts.databaseReadUrl,
        opts.poolSize ?? 10,
        opts.migrate ?? true,
        opts.writerConnections ?? 2,
      )
    : openPglite(
        opts.dataDir,
        opts.onInfo ?? (() => {}),
        opts.template === undefined ? usableTemplate() : opts.template,
      );
}

/**
 * Session-level advisory lock held while migrating, so instances on several hosts that start at
 * once on one PostgreSQL apply the migrations one after the other (the later ones find nothing to
 * do) instead of racing on the same DDL. Any fixed number works; this one spells "SPYG".
 */
const MIGRATION_LOCK = 0x53505947;

async function openPostgres(
  url: string,
  readUrl: string | undefined,
  max: number,
  runMigrations: boolean,
  writerMax: number,
): Promise<Store> {
  const { migrate } = await import('drizzle-orm/postgres-js/migrator');
  // Connect first, so a wrong host, port, database or password is reported as such rather than
  // as the first migration statement that failed.
  const client = await connectPool(url, max);
  const db = (await orm(client)) as unknown as Db;
  try {
    if (runMigrations) {
      // The lock belongs to one session: a connection of its own holds it while the pool migrates.
      // (A connection reserved from the pool took the only one of a pool of one, and the migration
      // then waited for it forever.)
      const lock = await connectPool(url, 1, 'spyglass-migrate');
      try {
        await lock`select pg_advisory_lock(${MIGRATION_LOCK})`;
        await migrate(await orm(client), { migrationsFolder: MIGRATIONS });
      } finally {
        await lock.end({ timeout: 5 });
      }
    }
  } catch (err) {
    await client.end({ timeout: 1 });
    throw migrationError(err);
  }
  const replica =
    readUrl === undefined
      ? null
      : await connectPool(readUrl, max, 'spyglass-read').catch(async (err: unknown) => {
          await client.end({ timeout: 1 });
          throw err;
        });
  const replicaDb = replica && ((await orm(replica)) as unknown as Db);
  const writer = await writerPool(url, writerMax);
  const ping = (d: Db, timeoutMs: number) => withTimeout(d.execute(sql`select 1`), timeoutMs);
  return {
    db: replicaDb ? routingDb(db, replicaDb) : db,
    kind: 'postgres',
    client,
    writer,
    writerConnections: writerMax,
    readConnections: max,
    // Readiness needs both: a read route on a dead replica fails as surely as a write on a dead primary.
    ping: async (timeoutMs = 2000) => {
      await Promise.all([ping(db, timeoutMs), replicaDb && ping(replicaDb, timeoutMs)]);
    },
    // Runs last in a stop, once requests, background jobs and the writer are done (src/main.ts), so
    // nothing of ours is still waiting on a query. The short grace matters after the database
    // restarted: postgres.js keeps a connection that failed mid-query marked busy, and its end()
    // then waits out the whole timeout (porsager/postgres#1097): 5 s of every such stop before.
    close: async () => {
      await Promise.all([
        client.end({ timeout: CLOSE_GRACE_S }),
        writer.end({ timeout: CLOSE_GRACE_S }),
        replica?.end({ timeout: CLOSE_GRACE_S }),
      ]);
    },
  };
}

/** How long close() lets a PostgreSQL connection finish before it is cut, seconds. */
const CLOSE_GRACE_S = 0.5;

/**
 * A pool whose first query has answered; a failure says what is wrong with the URL (connectError).
 * `name` sets application_name, so pg_stat_activity tells the read pool from the primary's.
 */
async function connectPool(url: string, max: number, name?: string): Promise<Sql> {
  const client = await newPool(url, max, { name, idleTimeoutS: 60 });
  await client`select 1`.catch(async (err: unknown) => {
    await client.end({ timeout: 1 });
    throw connectError(err, url);
  });
  return client;
}

/**
 * A postgres.js pool with the options every pool of the server shares; opens no connection yet.
 * `name` sets application_name; `idleTimeoutS` 0 keeps idle connections open.
 */
async function newPool(
  url: string,
  max: number,
  opts: { name?: string | undefined; idleTimeoutS: number },
): Promise<Sql> {
  const { default: postgres } = await import('postgres');
  return postgres(url, {
    max,
    onnotice: () => {},
    connect_timeout: 10,
    idle_timeout: opts.idleTimeoutS,
    // TCP_NODELAY (pg-socket.ts); postgres.js's types omit the option.
    ...noDelayOption(url),
    ...(opts.name ? { connection: { application_name: opts.name } } : {}),
  });
}

/**
 * The writer's pool: opens nothing until the first commit or the warm-up (warm-writer.ts), so
 * readiness does not wait for it; a connection failure reaches the commit, which retries it as
 * any other. Its idle connections stay open (the main pool closes its after 60 s): a connection
 * opened again pays its first statements again (the upsert parsed, its tables' and spans'
 * partitions' catalog entries loaded, its plan made), which the warm-up paid at the start.
 * postgres.js still replaces each after its lifetime (30-60 minutes).
 */
async function writerPool(url: string, max: number): Promise<Sql> {
  const writer = await newPool(url, max, { name: 'spyglass-writer', idleTimeoutS: 0 });
  // The same value serializers and parsers as the main client's, which drizzle sets: the
  // statement's json parameters go as the text they are (postgres.js would quote it again).
  await orm(writer);
  return writer;
}

/**
 * drizzle over a postgres.js client (both back ends), reading timestamps as pg-time.ts does. Every
 * drizzle(client) resets the client's timestamp parsers, so each goes through here.
 */
async function orm(client: Sql): Promise<PostgresJsDatabase<typeof schema>> {
  const { drizzle } = await import('drizzle-orm/postgres-js');
  const db = drizzle(client, { schema });
  readTimesExactly(client);
  return db;
}

/** drizzle's message is the whole failed statement; the driver's cause says what went wrong. */
function migrationError(err: unknown): Error {
  const cause = (err as { cause?: unknown }).cause;
  return new Error(
    `applying database migrations failed: ${cause instanceof Error ? cause.message : (err as Error).message}`,
  );
}

/**
 * PGlite's settings. Its default 128 MB of shared buffers is sized for a server, not an embedded
 * store; they live in its WebAssembly memory, which never shrinks, and a load touches every one
 * of them. 16 MB (32 MB before) took 18 MB off the wasm memory's resident part at the peak of the
 * full ingest load; a page that leaves the buffers stays in the OS's page cache, one read away
 * (docs/benchmarks.md#memory-at-the-peak-on-pglite-second-round-2026-11-27-1115-1300-utc).
 * WAL buffers follow (1/32 of them).
 */
const PGLITE_CONF = ['shared_buffers=16MB'];

async function openPglite(
  dataDir: string,
  info: (message: string) => void,
  template: string | null,
): Promise<Store> {
  let dir = dataDir;
  let unlock = () => {};
  if (!dataDir.startsWith('memory://')) {
    dir = join(dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
    unlock = lockDataDir(dataDir);
  }
  let opening: Promise<PgliteThread> | undefined;
  let thread: PgliteThread | undefined;
  let client: Sql | undefined;
  try {
    if (!dir.startsWith('memory://') && !existsSync(join(dir, 'PG_VERSION'))) {
      if (template !== null && readdirSync(dir).length === 0) {
        info(`first start: creating the embedded database in ${dir} from the build's template`);
        copyTemplate(template, dir);
      } else {
        info(
          `first start: creating the embedded database in ${dir} (this takes about 10 seconds, once)`,
        );
        await initPgliteInChild(dir);
      }
    }
    // The database opens on its thread while the driver and the migrator load here.
    opening = startPgliteThread(dir, PGLITE_CONF);
    opening.catch(() => {}); // awaited below
    const [{ migrate }, { default: postgres }] = await Promise.all([
      import('drizzle-orm/postgres-js/migrator'),
      import('postgres'),
    ]);
    thread = await opening;
    const t = thread;
    // One connection: PGlite is one backend session, so a second could only wait for the first.
    // postgres.js takes a `socket` factory (used here for the thread's connections); its types omit it.
    const options = {
      socket: () => t.socket(),
      max: 1,
      user: 'postgres',
      database: 'postgres',
      onnotice: () => {},
    };
    client = postgres(options as Options<Record<string, never>>);
    await migrate(await orm(client), { migrationsFolder: MIGRATIONS });
  } catch (err) {
    await client?.end({ timeout: 1 });
    await opening?.then((t) => t.close()).catch(() => {});
    unlock();
    throw err;
  }
  const db = (await orm(client)) as unknown as Db;
  const [pg, t] = [client, thread];
  return {
    db,
    kind: 'pglite',
    client: pg,
    writer: pg,
    writerConnections: 1,
    readConnections: 1,
    pgliteCopyIn: (sql, rows) => t.copyIn(sql, rows),
    ping: (timeoutMs = 2000) => withTimeout(db.execute(sql`select 1`), timeoutMs),
    close: async () => {
      await pg.end({ timeout: 5 });
      await t.close();
      unlock();
    },
  };
}

/**
 * A new PGlite directory needs initdb, which leaves ~500 MB resident in the process that ran it
 * for the rest of its life. A short-lived child process runs it instead.
 */
async function initPgliteInChild(dir: string): Promise<void> {
  const entry = import.meta.resolve('@electric-sql/pglite');
  const script = `const { PGlite } = await import(${JSON.stringify(entry)}); await (await PGlite.create(${JSON.stringify(dir)})).close();`;
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script],
      { timeout: 120_000 },
      (err, _out, stderr) =>
        err
          ? reject(
              new Error(
                `could not initialise the embedded database in ${dir}: ${stderr.trim() || err.message}`,
              ),
            )
          : resolve(),
    );
  });
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
