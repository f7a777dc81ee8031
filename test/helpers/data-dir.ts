import { cpSync, mkdtempSync } from 'node:fs';
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
  cpSync(inject('pgliteTemplate'), join(dataDir, 'pglite'), { recursive: true });
  return dataDir;
}

/** A new temp directory holding a migrated PGlite (see seedPglite). */
export function seededDataDir(prefix = 'spyglass-data-'): string {
  return seedPglite(mkdtempSync(join(tmpdir(), prefix)));
}
