import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { execute } from '../../src/store/db.ts';
import { MIGRATIONS, openStore } from '../../src/store/open-store.ts';
import {
  pgliteVersion,
  TEMPLATE_DIR,
  templateIsCurrent,
  usableTemplate,
} from '../../src/store/pglite-template.ts';
import { CHILD_NODE_FLAGS } from '../helpers/child-node.ts';

/** The build's migrated PGlite directory that a first start copies (src/store/pglite-template.ts). */
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'spyglass-template-test-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const journalEntries = () =>
  (
    JSON.parse(readFileSync(join(MIGRATIONS, 'meta', '_journal.json'), 'utf8')) as {
      entries: unknown[];
    }
  ).entries.length;

describe('the PGlite template', () => {
  it('is made by the build and current', () => {
    expect(usableTemplate()).toBe(join(TEMPLATE_DIR, 'pglite'));
  });

  it('a first start copies it, and the copy is migrated and writable', async () => {
    const dataDir = tempDir();
    const said: string[] = [];
    const store = await openStore({ dataDir, onInfo: (m) => said.push(m) });
    try {
      expect(said).toEqual([
        `first start: creating the embedded database in ${join(dataDir, 'pglite')} from the build's template`,
      ]);
      const { rows } = await execute<{ n: number }>(
        store.db,
        sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
      );
      expect(rows[0]?.n).toBe(journalEntries());
      await store.db.execute(sql`create table written_here (id int)`);
    } finally {
      await store.close();
    }
    // Nothing half-copied left beside it.
    expect(existsSync(`${join(dataDir, 'pglite')}.partial-${process.pid}`)).toBe(false);
  });

  it('is not used when made with another PGlite, or without its data directory', () => {
    const other = tempDir();
    cpSync(TEMPLATE_DIR, other, { recursive: true });
    expect(usableTemplate(other)).toBe(join(other, 'pglite'));
    writeFileSync(
      join(other, 'made-with.json'),
      JSON.stringify({ pglite: `${pgliteVersion()}-other`, migrations: 'x' }),
    );
    expect(usableTemplate(other)).toBeNull();
    expect(templateIsCurrent('x', other)).toBe(false);
    const empty = tempDir();
    writeFileSync(
      join(empty, 'made-with.json'),
      JSON.stringify({ pglite: pgliteVersion(), migrations: 'x' }),
    );
    expect(usableTemplate(empty)).toBeNull();
    expect(usableTemplate(join(empty, 'absent'))).toBeNull();
  });

  it(
    'without a template, a first start runs initdb and every migration',
    { timeout: 180_000 },
    async () => {
      const dataDir = tempDir();
      // In a plain Node child: initdb's child process is found with import.meta.resolve, which
      // vitest's module runner lacks (as test/global-setup.ts does).
      const store = pathToFileURL(join(import.meta.dirname, '../../dist/store/open-store.js')).href;
      const script = `const { openStore } = await import(${JSON.stringify(store)}); const said = []; await (await openStore({ dataDir: ${JSON.stringify(dataDir)}, template: null, onInfo: (m) => said.push(m) })).close(); console.log(JSON.stringify(said));`;
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [...CHILD_NODE_FLAGS, '--input-type=module', '-e', script],
        { timeout: 170_000 },
      );
      expect(JSON.parse(stdout)).toEqual([
        `first start: creating the embedded database in ${join(dataDir, 'pglite')} (this takes about 10 seconds, once)`,
      ]);
      const reopened = await openStore({ dataDir });
      try {
        const { rows } = await execute<{ n: number }>(
          reopened.db,
          sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
        );
        expect(rows[0]?.n).toBe(journalEntries());
      } finally {
        await reopened.close();
      }
    },
  );
});
