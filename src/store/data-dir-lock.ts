import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * PGlite is single-process: two processes on one data directory would corrupt it. A pid file
 * guards the directory; a stale one (its process gone) is taken over.
 */
export function lockDataDir(dir: string): () => void {
  const path = join(dir, 'spyglass.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(path, 'utf8'));
      if (pid && pid !== process.pid && isAlive(pid)) {
        throw new Error(
          `the embedded database in ${dir} is in use by process ${pid} (a running \`spyglass serve\`?). ` +
            'Stop it, or talk to it over HTTP with --url and --api-key.',
        );
      }
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not lock ${dir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
