import { copyFileSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';

/**
 * Puts a copy of the run's migrated PGlite (test/global-setup.ts) at `<dataDir>/pglite`, so a server
 * or CLI started on `dataDir` skips initdb and the migrations (about 10 s of CPU each on a busy
 * 2-core machine). The first-start path itself stays covered by test/startup/startup-messages.test.ts
 * and test/cli/cli-usability.test.ts, which start on an empty directory.
 */
export function seedPglite(dataDir: string): string {
  const to = join(dataDir, 'pglite');
  const { dirs, files } = templateTree();
  for (const dir of dirs) mkdirSync(join(to, dir), { recursive: true });
  for (const file of files) copyFileSync(join(inject('pgliteTemplate'), file), join(to, file));
  return dataDir;
}

/** A new temp directory holding a migrated PGlite (see seedPglite). */
export function seededDataDir(prefix = 'spyglass-data-'): string {
  return seedPglite(mkdtempSync(join(tmpdir(), prefix)));
}

let tree: { dirs: string[]; files: string[] } | undefined;

/**
 * The template's directories and files (relative), listed once per process: it does not change
 * during a run. Copied from the list instead of by cpSync (which checks and stats each of the 1,200
 * files again), a seed and its removal cost 62-71 ms of CPU instead of 70-96 ms (three alternate
 * rounds of five); a run seeds about 200 times.
 */
function templateTree(): { dirs: string[]; files: string[] } {
  if (tree) return tree;
  const found = { dirs: [''], files: [] as string[] };
  for (const e of readdirSync(inject('pgliteTemplate'), { withFileTypes: true, recursive: true })) {
    const rel = join(e.parentPath.slice(inject('pgliteTemplate').length), e.name);
    if (e.isDirectory()) found.dirs.push(rel);
    else if (e.isFile()) found.files.push(rel);
    else throw new Error(`the PGlite template holds ${rel}, neither a file nor a directory`);
  }
  tree = found;
  return tree;
}
