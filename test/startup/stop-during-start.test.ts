import { rmSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { startPeriodic } from '../../src/scale/jobs/periodic.ts';
import { listPartitions, partitionName } from '../../src/store/partitions.ts';
import { seededDataDir } from '../helpers/data-dir.ts';
import { startTestServer } from '../helpers/server.ts';

/**
 * A server stopped while its background jobs make their first pass (retention, detectors,
 * evaluators: src/scale/jobs/periodic.ts) stops after the step in progress, not after the pass, and
 * leaves its data as a later start expects it.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

it('stop() lets the step in progress finish and skips the steps of the pass not begun', async () => {
  const steps: string[] = [];
  let finishFirst!: () => void;
  const firstStep = new Promise<void>((r) => (finishFirst = r));
  let began!: () => void;
  const running = new Promise<void>((r) => (began = r));
  const job = startPeriodic(
    async (signal) => {
      began();
      await firstStep;
      steps.push('first');
      if (signal.aborted) return;
      steps.push('second');
    },
    3_600_000,
    (err) => {
      throw err;
    },
  );
  await running;
  let stopped = false;
  const stopping = job.stop().then(() => (stopped = true));
  // The step in progress holds the stop: it is never cut off half-way.
  await Promise.resolve();
  expect(stopped).toBe(false);
  finishFirst();
  await stopping;
  expect(steps).toEqual(['first']);
});

it('a server stopped during its first background pass opens again on the same data', async () => {
  const dataDir = seededDataDir('spyglass-stop-early-');
  dirs.push(dataDir);
  const env = { SPYGLASS_DATA_DIR: dataDir, SPYGLASS_RATE_LIMITS: 'off' };
  // Stopped as soon as it listens: its jobs have just begun their first pass.
  const first = await startTestServer(env);
  await first.stop();

  const second = await startTestServer(env);
  try {
    expect((await fetch(`${second.httpUrl}/api/readiness`)).status).toBe(200);
    // The second start's own first pass runs whole: today's span partition exists.
    const today = partitionName(new Date());
    await expect.poll(() => listPartitions(second.services.store.db)).toContain(today);
  } finally {
    await second.stop();
  }
});
