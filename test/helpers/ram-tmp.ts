import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from './process-alive.ts';

/** Where RAM-backed temp directories go; `SPYGLASS_TEST_TMPFS=0` keeps the system's temp dir. */
const SHM = '/dev/shm';
const PREFIX = 'spyglass-tests-';
/** Below this much free space in SHM the run keeps the system's temp dir. */
const MIN_FREE_BYTES = 4 * 1024 ** 3;

/**
 * Points TMPDIR (so `os.tmpdir()` of this process, the test workers it forks and every child
 * process) at a directory on /dev/shm when it is a tmpfs with room, and returns it (null when not).
 *
 * Every server a test starts copies a 41 MB PGlite directory into a temp dir and removes it when it
 * stops. On a disk mounted with `discard` (as this project's machines are), removing a directory the
 * database has written waits for the device: 2.5-2.8 s of wall time for each server (72-279 ms of
 * CPU), and PGlite's stop writes its pages first; in RAM the removal takes 28-197 ms. PostgreSQL's
 * test cluster, Redis and CLI runs' directories go there too. A run killed before its teardown
 * leaves its directory behind: the next run removes those whose process is gone.
 */
export function useRamTempDir(): string | null {
  if (process.env.SPYGLASS_TEST_TMPFS === '0' || !existsSync(SHM)) return null;
  for (const name of readdirSync(SHM)) {
    const pid = Number(name.slice(PREFIX.length));
    if (name.startsWith(PREFIX) && Number.isInteger(pid) && !processAlive(pid))
      rmSync(join(SHM, name), { recursive: true, force: true });
  }
  const fs = statfsSync(SHM);
  if (fs.bavail * fs.bsize < MIN_FREE_BYTES) return null;
  const dir = join(SHM, `${PREFIX}${process.pid}`);
  mkdirSync(dir, { recursive: true });
  // The test PostgreSQL cluster runs as the postgres user when the tests run as root: it must be
  // able to make its own directory in here (each directory made in it is private again).
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  return dir;
}
