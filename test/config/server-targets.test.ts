import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';

/** servers[] interval and timeout, validated at load, are what the health checks use. */
let dir: string;
let app: InProcessApp;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-targets-'));
  const path = join(dir, 'spyglass.yaml');
  writeFileSync(
    path,
    [
      'monitor: { health_check_interval_seconds: 120 }',
      'servers:',
      '  - { name: own, transport: stdio, command: x, health_check_interval_seconds: 300, timeout_seconds: 2.5 }',
      '  - { name: plain, transport: sse, url: "http://127.0.0.1:9/sse" }',
    ].join('\n'),
  );
  app = await startInProcessApp({ SPYGLASS_CONFIG: path });
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('configured servers as health-check targets', () => {
  it("take a server's own interval and timeout, else the monitor's interval and the 5 s default", async () => {
    const health = app.services.health;
    const targets = await health.targets('default');
    expect(targets.map((t) => [t.name, t.intervalSeconds, t.timeoutSeconds])).toEqual([
      ['own', 300, 2.5],
      ['plain', undefined, 5],
    ]);
    expect(targets.map((t) => health.intervalOf(t))).toEqual([300, 120]);
  });
});
