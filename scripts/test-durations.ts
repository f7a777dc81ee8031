import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Rewrites test/file-durations.json, the durations test/longest-first.ts orders a run by when
 * Vitest has none of its own, from the last `npm test` on this machine (Vitest's results cache).
 * Run it after a full run on a quiet machine and commit the file.
 */
const root = join(import.meta.dirname, '..');
const cacheDir = join(root, 'node_modules/.vite/vitest');
const durations: Record<string, number> = {};
for (const project of readdirSync(cacheDir)) {
  const { results } = JSON.parse(readFileSync(join(cacheDir, project, 'results.json'), 'utf8')) as {
    results: [string, { duration: number }][];
  };
  for (const [key, { duration }] of results) {
    const path = key.slice(key.indexOf(':') + 1);
    if (path.startsWith('test/') && existsSync(join(root, path)))
      durations[path] = Math.round(duration / 100) * 100;
  }
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(join(root, 'test/file-durations.json'), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/file-durations.json: ${Object.keys(sorted).length} files`);
