import { pino } from 'pino';
import { expect, it } from 'vitest';
import { shutdownSteps } from '../../src/startup/shutdown-steps.ts';

it('names the shutdown step the process is waiting on once it takes long, and stops naming it after', async () => {
  const lines: Record<string, unknown>[] = [];
  let warned!: () => void;
  const warnedOnce = new Promise<void>((r) => (warned = r));
  const logger = pino(
    { level: 'warn' },
    {
      write: (line: string) => {
        lines.push(JSON.parse(line));
        warned();
      },
    },
  );
  const steps = shutdownSteps(logger, 40);
  await steps.run('quick step', async () => undefined);
  // The step ends only once the warning about it was logged: no sleeping, no race.
  await steps.run(
    'database close',
    () => warnedOnce,
    () => ['POST /api/traces/spans'],
  );
  steps.done();
  expect(lines[0]).toMatchObject({
    step: 'database close',
    msg: 'shutdown still waiting on: database close',
  });
  expect(lines[0]?.waitedMs).toBeGreaterThanOrEqual(40);
  expect(lines.some((l) => l.step === 'quick step')).toBe(false);
});
