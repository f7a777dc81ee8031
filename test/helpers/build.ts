import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '../..');
/** Written after each build this helper runs: its mtime is "the build is at least this new". */
const STAMP = join(ROOT, 'dist/.built-at');
const CONFIGS = [
  'tsconfig.json',
  'tsconfig.build.json',
  'sdk/tsconfig.json',
  'package.json',
  'sdk/package.json',
];

function newestMtime(dir: string, ext = /\.ts$/): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && ext.test(entry.name))
      newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * Compiles src/ into dist/ and sdk/src/ into sdk/dist/ (`npm run build`: the server, the CLI that
 * tests spawn through bin/spyglass.js, and the SDK package) when no build is there or a source or build config is newer than
 * the last one, so tests never run stale JavaScript. tsc is incremental: a rebuild after a small
 * change recompiles only what it touches. Returns whether it built.
 */
export async function buildIfStale(): Promise<boolean> {
  const sources = Math.max(
    newestMtime(join(ROOT, 'src')),
    newestMtime(join(ROOT, 'sdk/src')),
    ...CONFIGS.map((f) => statSync(join(ROOT, f)).mtimeMs),
  );
  if (existsSync(STAMP) && statSync(STAMP).mtimeMs >= sources) return false;
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  for (const project of ['tsconfig.build.json', 'sdk/tsconfig.json']) {
    await promisify(execFile)(process.execPath, [tsc, '-p', join(ROOT, project)], {
      cwd: ROOT,
      timeout: 300_000,
    });
  }
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
  return true;
}

/** The dashboard's build (its index.html is the stamp). */
const UI_INDEX = join(ROOT, 'dist/ui/index.html');

/**
 * Builds the dashboard (ui/ into dist/ui, `npm run build:ui`) when it is missing or a UI source,
 * its config or package.json is newer, so the browser tests never drive a stale bundle.
 */
export async function buildUiIfStale(): Promise<boolean> {
  const sources = Math.max(
    newestMtime(join(ROOT, 'ui'), /\.(ts|tsx|css|html|svg|json)$/),
    statSync(join(ROOT, 'package.json')).mtimeMs,
  );
  if (existsSync(UI_INDEX) && statSync(UI_INDEX).mtimeMs >= sources) return false;
  const vite = join(ROOT, 'node_modules/vite/bin/vite.js');
  await promisify(execFile)(process.execPath, [vite, 'build', '--config', 'ui/vite.config.ts'], {
    cwd: ROOT,
    timeout: 300_000,
  });
  return true;
}
