// Makes dist/pglite-template/, the migrated PGlite data directory a first `spyglass serve` copies
// instead of running initdb and every migration (src/store/pglite-template.ts). Run by
// `npm run build` (and so by `npm install`), after tsc; it does nothing when the template is
// already current (made with the installed PGlite from the same drizzle/ folder).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIGRATIONS, openStore } from '../src/store/open-store.ts';
import {
  installTemplate,
  migrationsHash,
  TEMPLATE_DIR,
  templateIsCurrent,
} from '../src/store/pglite-template.ts';

const migrations = migrationsHash(MIGRATIONS);
if (templateIsCurrent(migrations)) {
  process.stdout.write(`${TEMPLATE_DIR} is current\n`);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-template-'));
  try {
    await (await openStore({ dataDir: dir, template: null })).close();
    installTemplate(join(dir, 'pglite'), migrations);
    process.stdout.write(`wrote ${TEMPLATE_DIR}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
