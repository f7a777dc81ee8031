import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HealthMonitor } from '../../src/health/monitor.ts';
import type { CheckReport } from '../../src/health/checker.ts';
import { startHttpFixtures, type HttpFixtures } from '../fixtures/mcp/http-fixtures.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { tempDir, writeConfig } from './helpers.ts';

/**
 * A check that outlasts the monitor's interval (a server that never answers, timeout 2 s, interval
 * 1 s) is not joined by the next wake: each result is reported once, so `spyglass monitor --json`
 * prints each check once.
 */
let fx: HttpFixtures;
let inproc: InProcessApp;
let dir: string;

beforeAll(async () => {
  fx = await startHttpFixtures();
  dir = tempDir();
  const config = writeConfig(dir, {
    monitor: { enabled: false },
    network: { allow_private_targets: ['127.0.0.1/32'] },
    servers: [
      {
        name: 'hangs',
        transport: 'streamable_http',
        url: `${fx.url}/hang/overlap/mcp`,
        timeout_seconds: 2,
      },
    ],
  });
  inproc = await startInProcessApp({ SPYGLASS_CONFIG: config });
});
afterAll(async () => {
  await inproc?.close();
  await fx?.close();
  rmSync(dir, { recursive: true, force: true });
});

it(
  'reports each check of a server slower than the interval once',
  { timeout: 30_000 },
  async () => {
    const reports: CheckReport[] = [];
    const monitor = new HealthMonitor(inproc.services.health, {
      intervalSeconds: 1,
      logger: inproc.services.logger,
      onReport: (r) => reports.push(r),
    });
    monitor.start();
    try {
      await expect.poll(() => reports.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    } finally {
      await monitor.stop();
    }
    const ids = reports.map((r) => r.result.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(reports.every((r) => r.result.status === 'down')).toBe(true);
  },
);
