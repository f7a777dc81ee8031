import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findPgBin, startPgCluster } from './pg-cluster.ts';
import { processAlive } from './process-alive.ts';

/** A pid no process has any more: a child's, after it exited. */
function deadPid(): number {
  const { pid } = spawnSync(process.execPath, ['-e', '0']);
  if (!pid || processAlive(pid)) throw new Error('no exited pid');
  return pid;
}

describe.skipIf(!findPgBin())('throwaway test clusters', () => {
  it('a cluster whose starting process is gone is stopped and removed by the next start', async () => {
    const orphan = await startPgCluster();
    const postmaster = Number(
      readFileSync(join(orphan.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    expect(processAlive(postmaster)).toBe(true);
    // As a run killed before its teardown leaves it: running, its owner gone.
    writeFileSync(join(orphan.dataDir, 'spyglass-owner.pid'), String(deadPid()));

    const next = await startPgCluster();
    try {
      expect(existsSync(orphan.dataDir)).toBe(false);
      await expect.poll(() => processAlive(postmaster)).toBe(false);
      // A cluster whose owner runs (this process) is left alone.
      expect(existsSync(join(next.dataDir, 'PG_VERSION'))).toBe(true);
    } finally {
      await next.stop();
      await orphan.stop();
    }
  });
});
