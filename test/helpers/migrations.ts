import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sql } from 'postgres';

/**
 * A copy of drizzle/ whose journal stops at migration `lastIdx`: a database migrated from it is one
 * an earlier release left, for tests of what a later migration does to stored rows. The caller
 * removes the directory.
 */
function migrationsUpTo(lastIdx: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-mig-'));
  cpSync('drizzle', dir, { recursive: true });
  const journalPath = join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { idx: number }[] };
  journal.entries = journal.entries.filter((e) => e.idx <= lastIdx);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

/**
 * Migrates the PostgreSQL database at `url` up to migration `lastIdx` only, as an earlier release
 * left it, and has `seed` write the rows a later migration will find, on one connection closed
 * afterwards.
 */
export async function pgDatabaseAt(
  url: string,
  lastIdx: number,
  seed: (client: Sql) => Promise<void>,
): Promise<void> {
  const folder = migrationsUpTo(lastIdx);
  const { default: postgres } = await import('postgres');
  const { drizzle } = await import('drizzle-orm/postgres-js');
  const { migrate } = await import('drizzle-orm/postgres-js/migrator');
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await migrate(drizzle(client), { migrationsFolder: folder });
    await seed(client);
  } finally {
    await client.end({ timeout: 5 });
    rmSync(folder, { recursive: true, force: true });
  }
}
