import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';

/**
 * The storage back ends every storage-touching suite runs against, in the style of drizzle-orm's
 * one shared suite per driver:
 *
 *   describe.each(backends)('$name', ({ available, env }) => { ... describe.runIf(available) ... })
 *
 * `env()` gives the environment a server needs for that back end: nothing for PGlite (the server
 * keeps it in its own temp data directory), a fresh database on the shared PostgreSQL cluster
 * (test/global-setup.ts), already migrated, for PostgreSQL. Call it once per server start you want isolated.
 */
export interface Backend {
  name: 'pglite' | 'postgres';
  /** False when the run has no PostgreSQL (local machine without it; CI always has it). */
  available: boolean;
  env(): Promise<Record<string, string>>;
}

/** The shared cluster's superuser URL, or null when this run has no PostgreSQL. */
export const pgAdminUrl: string | null = inject('pgAdminUrl');

/** The cluster's migrated database (test/global-setup.ts), or null when this run has no PostgreSQL. */
const pgTemplateDb: string | null = inject('pgTemplateDb');

let counter = 0;

/**
 * Creates a database on the shared cluster (empty, or a copy of `template`) and returns its URL;
 * empty for tests of what the
 * migrations do to a database (first start, migration lock, a migration on existing rows). Others
 * take createMigratedPgDatabase.
 */
export async function createPgDatabase(
  adminUrl: string | null = pgAdminUrl,
  template?: string,
): Promise<string> {
  if (!adminUrl) throw new Error('this run has no PostgreSQL (see test/global-setup.ts)');
  const name = `spyglass_t${process.pid}_${counter++}_${randomBytes(4).toString('hex')}`;
  const { default: postgres } = await import('postgres');
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    await admin.unsafe(`create database "${name}"${template ? ` template "${template}"` : ''}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A database holding every migration, copied from the run's migrated template (about 0.2 s instead
 * of 0.65-0.77 s for an empty one that the store then migrates); a store or server opened on it
 * finds nothing to apply.
 */
export function createMigratedPgDatabase(): Promise<string> {
  if (!pgTemplateDb) throw new Error('this run has no PostgreSQL (see test/global-setup.ts)');
  return createPgDatabase(pgAdminUrl, pgTemplateDb);
}

export const backends: Backend[] = [
  { name: 'pglite', available: true, env: async () => ({}) },
  {
    name: 'postgres',
    available: pgAdminUrl !== null,
    env: async () => ({ SPYGLASS_DATABASE_URL: await createMigratedPgDatabase() }),
  },
];

/**
 * The back end of server-level tests whose PostgreSQL run covered only storage: the repository
 * suite (test/store/repos/) runs every repository against both drivers without a server, so these
 * start their server on PGlite alone. Tests of what needs a real PostgreSQL server (durability,
 * cluster, read replica, partitions, outages, migrations) keep `backends`.
 */
export const serverBackends: Backend[] = backends.filter((b) => b.name === 'pglite');
