import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '../..');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * Compiles src/sdk into dist/sdk (`npm run build:sdk`) when the build is missing or older than a
 * source file, so the SDK tests always run against the sources they sit beside. Returns whether it built.
 */
export async function buildSdkIfStale(): Promise<boolean> {
  const built = join(ROOT, 'dist/sdk/index.js');
  const sources = newestMtime(join(ROOT, 'src/sdk'));
  if (existsSync(built) && statSync(built).mtimeMs >= sources && statSync(join(ROOT, 'tsconfig.sdk.json')).mtimeMs <= statSync(built).mtimeMs) return false;
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  await promisify(execFile)(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.sdk.json')], { cwd: ROOT, timeout: 120_000 });
  return true;
}
