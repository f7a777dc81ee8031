// The last step of `npm run build` (and so of `npm install`/`npm ci`): writes dist/.built-at, whose
// time says "the build is at least this new". The test run's setup (test/helpers/build.ts
// buildIfStale) builds again only when a source or build config is newer than it: without the
// stamp, a clean clone's first `npm test` ran tsc twice and the bundle again right after npm ci had
// built them (about 15 s of CPU before any test file could start).
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(import.meta.dirname, '..');
/** Its mtime is "the build is at least this new". */
export const STAMP = join(ROOT, 'dist/.built-at');

/**
 * Marks the build current. tsc's incremental build writes only the outputs of sources whose
 * content changed since its build info. In a checkout whose dist/ was copied from another one's (a
 * worktree set up from the main checkout), every source is then newer than its unchanged output,
 * and the database thread's freshness check (src/store/pglite-thread.ts builtWorker, which compares
 * the two) sent every PGlite open of the test processes down its tsx path: a thread that registers
 * tsx, about 0.7 s more CPU per open, ~50 opens a run. The build is current once tsc has run: an
 * output older than its source is given the build's time, then the stamp is written.
 */
export function stampBuild(): void {
  const src = join(ROOT, 'src');
  const now = new Date();
  for (const entry of readdirSync(src, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const from = join(entry.parentPath, entry.name);
    const to = join(ROOT, 'dist', from.slice(src.length).replace(/\.ts$/, '.js'));
    if (existsSync(to) && statSync(to).mtimeMs < statSync(from).mtimeMs) utimesSync(to, now, now);
  }
  writeFileSync(STAMP, `${now.toISOString()}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) stampBuild();
