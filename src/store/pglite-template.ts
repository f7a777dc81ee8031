import {
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import { packagePath } from '../package-root.ts';
import { dirname, join } from 'node:path';

/**
 * A migrated PGlite data directory made by the build (`npm run build`, which `npm install` runs:
 * scripts/pglite-template.ts), which a first start copies instead of running initdb and every
 * migration (10-15 s of CPU in a child process; the copy takes a fraction of a second). The copy
 * is then opened as any existing directory: migrations added since the build are applied as usual.
 * It is used only when the PGlite it was made with is the one installed now; otherwise, or without
 * a template (a build that did not make one), the first start runs initdb as before.
 */

/** The template beside the compiled code (dist/pglite-template/). */
export const TEMPLATE_DIR = packagePath('dist/pglite-template');
/** What the template was made with: `{ pglite, migrations }` (the version, a hash of drizzle/). */
const MARKER = 'made-with.json';

/** The installed PGlite's version (its package.json, beside its dist/). */
export function pgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const pkg = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

interface MadeWith {
  pglite: string;
  migrations: string;
}

function madeWith(template: string): MadeWith | null {
  try {
    return JSON.parse(readFileSync(join(template, MARKER), 'utf8')) as MadeWith;
  } catch {
    return null;
  }
}

/** A hash of the migrations folder (drizzle/): the build remakes the template when it changes. */
export function migrationsHash(folder: string): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(folder, { recursive: true }).map(String).sort()) {
    if (!name.endsWith('.sql') && !name.endsWith('_journal.json')) continue;
    hash.update(name).update(readFileSync(join(folder, name)));
  }
  return hash.digest('hex');
}

/** The template's data directory when there is one made with the installed PGlite, else null. */
export function usableTemplate(template = TEMPLATE_DIR): string | null {
  if (madeWith(template)?.pglite !== pgliteVersion()) return null;
  const data = join(template, 'pglite');
  return existsSync(join(data, 'PG_VERSION')) ? data : null;
}

/** Whether the template is current: made with the installed PGlite from these migrations. */
export function templateIsCurrent(migrations: string, template = TEMPLATE_DIR): boolean {
  const made = madeWith(template);
  return made?.migrations === migrations && usableTemplate(template) !== null;
}

/**
 * Copies the template's data directory to `dir`, which must be empty or absent: into a sibling
 * first, renamed into place once complete, so a start stopped half-way never leaves a partial
 * database that looks like one (PG_VERSION without the rest).
 */
export function copyTemplate(data: string, dir: string): void {
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  try {
    cpSync(data, partial, { recursive: true });
    if (existsSync(dir) && readdirSync(dir).length === 0) rmSync(dir, { recursive: true });
    renameSync(partial, dir);
  } catch (err) {
    rmSync(partial, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Replaces the template with a copy of `made` (a migrated PGlite data directory), marked with the
 * installed PGlite's version and `migrations` (migrationsHash of the folder it was migrated from).
 */
export function installTemplate(made: string, migrations: string, template = TEMPLATE_DIR): void {
  const next = `${template.replace(/\/$/, '')}.next-${process.pid}`;
  rmSync(next, { recursive: true, force: true });
  cpSync(made, join(next, 'pglite'), { recursive: true });
  const marker: MadeWith = { pglite: pgliteVersion(), migrations };
  writeFileSync(join(next, MARKER), JSON.stringify(marker));
  rmSync(template, { recursive: true, force: true });
  renameSync(next, template);
}
