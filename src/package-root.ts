import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of Spyglass's package.json, where drizzle/, data/ and dist/ are. Found by walking up
 * from this module, so it is the same from the sources (src/), tsc's output (dist/<folder>/) and
 * the bundle `bin/spyglass.js` runs (dist/bundle/, where every module of the server shares one
 * folder: a path written relative to the module's own file would be wrong there).
 */
export const PACKAGE_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** A path inside the package: `packagePath('drizzle')`. */
export const packagePath = (...parts: string[]): string => join(PACKAGE_ROOT, ...parts);

/** Spyglass's version, from its package.json (`spyglass --version`, SARIF's tool version). */
export function spyglassVersion(): string {
  return (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string })
    .version;
}
