import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveEvent } from '../../src/live/bus.ts';
import { startHttpFixtures, type HttpFixtures } from '../fixtures/mcp/http-fixtures.ts';
import { bootstrapKey, call, createProject, expectStatus } from '../helpers/auth.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { tempDir, writeConfig } from './helpers.ts';

/**
 * Item 3 of the hardening issue: project B's catalog full of tarpits must not hold up project A's
 * check. B's checks are held by a loopback tarpit (accepts, never answers) until the test lets go;
 * A's check must complete while they are all still held.
 */
const boot = bootstrapKey();
let dir: string;
let fx: HttpFixtures;
let server: InProcessApp;
let tarpit: Server;
const held = new Set<Socket>();
let releasing = false;

beforeAll(async () => {
  dir = tempDir();
  fx = await startHttpFixtures();
  tarpit = createServer((s) => {
    if (releasing) return s.destroy();
    held.add(s);
    s.on('close', () => held.delete(s));
  });
  tarpit.listen(0, '127.0.0.1');
  await once(tarpit, 'listening');
  const config = writeConfig(dir, {
    // Four slots, one of them reserved by default: with one shared FIFO, B's queue would come first.
    monitor: { enabled: false, concurrency: 4 },
    network: { allow_private_targets: ['127.0.0.0/8'] },
  });
  server = await startInProcessApp({
    SPYGLASS_CONFIG: config,
    SPYGLASS_API_KEYS: boot,
    SPYGLASS_RATE_LIMITS: 'off',
  });
  for (const p of ['a', 'b']) await createProject(server.httpUrl, boot, p);
  const put = async (project: string, name: string, url: string) =>
    expectStatus(
      await call(server.httpUrl, 'PUT', `/api/servers/metadata/${name}?project_id=${project}`, {
        key: boot,
        body: { transport: 'streamable_http', url },
      }),
      200,
      name,
    );
  const tarpitUrl = `http://127.0.0.1:${(tarpit.address() as AddressInfo).port}/mcp`;
  for (let i = 0; i < 6; i++) await put('b', `tarpit-${i}`, tarpitUrl);
  await put('a', 'fast', `${fx.url}/ok/fast/mcp`);
});

afterAll(async () => {
  for (const s of held) s.destroy();
  tarpit?.close();
  await server?.close();
  await fx?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('health checks are scheduled fairly per project', () => {
  it("project A's check completes while project B's tarpits hold their checks", async () => {
    const health = server.services.health;
    const done: string[] = [];
    const off = server.services.bus.subscribe((e: LiveEvent) => {
      if (e.type === 'health:check') done.push(`${String(e.data.projectId)}/${e.data.serverName}`);
    });
    try {
      const firstHeld = once(tarpit, 'connection');
      const bChecks = health.checkAll(await health.targets('b'));
      await firstHeld;
      const [a] = await health.checkAll(await health.targets('a'));
      expect(a?.result).toMatchObject({ serverName: 'fast', status: 'up' });
      // Nothing of B finished before A: its checks are still in the tarpit or waiting their turn.
      expect(done).toEqual(['a/fast']);
      expect(held.size).toBeGreaterThan(0);

      // Let go of the tarpit: B's checks end (down) as its slots free.
      releasing = true;
      for (const s of held) s.destroy();
      const reports = await bChecks;
      expect(reports.map((r) => r.result.status)).toEqual(Array(6).fill('down'));
      expect(done.slice(1).sort()).toEqual(Array.from({ length: 6 }, (_, i) => `b/tarpit-${i}`));
    } finally {
      off();
    }
  });
});
