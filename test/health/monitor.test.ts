import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveStdioGroups } from '../../src/health/stdio-process.ts';
import { startHttpFixtures, type HttpFixtures } from '../fixtures/mcp/http-fixtures.ts';
import { call, expectStatus } from '../helpers/auth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  childPids,
  collectEvents,
  fdCount,
  startFixtureProcess,
  stdioFixture,
  tempDir,
  writeConfig,
  type FixtureProcess,
} from './helpers.ts';

const ADMIN = `sg_${'m'.repeat(64)}`;
let fx: HttpFixtures;
const dirs: string[] = [];

beforeAll(async () => {
  fx = await startHttpFixtures();
});
afterAll(async () => {
  await fx?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function serve(doc: Record<string, unknown>): Promise<TestServer> {
  const dir = tempDir();
  dirs.push(dir);
  return startTestServer({
    SPYGLASS_CONFIG: writeConfig(dir, doc),
    SPYGLASS_API_KEYS: ADMIN,
    SPYGLASS_RATE_LIMITS: 'off',
  });
}

describe('100 configured servers in one cycle', () => {
  const TIMEOUT_MS = 2000;
  let remote: FixtureProcess;
  let server: TestServer;

  beforeAll(async () => {
    // The fixtures run in their own process, as real servers would, so the cycle measures the checker.
    remote = await startFixtureProcess();
    const timeout_seconds = TIMEOUT_MS / 1000;
    // Ten servers hang (and sort first, so all ten hold a slot at once); 90 answer, half over SSE.
    const servers = [
      ...Array.from({ length: 10 }, (_, i) => ({
        name: `hang-${i}`,
        transport: 'streamable_http',
        url: `${remote.url}/hang/${i}/mcp`,
        timeout_seconds,
      })),
      ...Array.from({ length: 90 }, (_, i) => {
        const sse = i % 2 === 1;
        return {
          name: `ok-${String(i).padStart(2, '0')}`,
          transport: sse ? 'sse' : 'streamable_http',
          url: `${remote.url}/ok/${i}/${sse ? 'sse' : 'mcp'}`,
          timeout_seconds,
        };
      }),
    ];
    server = await serve({ monitor: { enabled: false, concurrency: 32 }, servers });
  });
  afterAll(async () => {
    await server?.dispose();
    await remote?.stop();
  });

  const cycle = async () => {
    const t0 = performance.now();
    const res = expectStatus(
      await call(server.httpUrl, 'POST', '/api/health/check', { key: ADMIN }),
      200,
      'check',
    );
    return { results: res.json as any[], ms: performance.now() - t0 };
  };

  it('finishes within about one timeout, with no descriptor or process left behind', async () => {
    await cycle(); // warm-up: sets every baseline and opens the database files
    const fds = fdCount();
    const children = childPids().sort();

    const { results, ms } = await cycle();
    expect(results).toHaveLength(100);
    const down = results.filter((r) => r.status === 'down');
    expect(down.map((r) => r.server_name).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `hang-${i}`),
    );
    for (const r of down)
      expect(r.error).toBe(`timed out after ${TIMEOUT_MS} ms waiting for initialize`);
    expect(results.filter((r) => r.status === 'up')).toHaveLength(90);
    // Hanging servers hold 10 of the 32 slots for one timeout while the others check the rest: about
    // one timeout, where checking them one after another would take ten (20 s). The bound leaves
    // room for a busy CI machine (a parallel test run measured 4.5 s) and still fails on any
    // serialisation of the hung checks.
    expect(ms).toBeLessThan(3 * TIMEOUT_MS);

    expect(childPids().sort()).toEqual(children);
    await expect.poll(() => remote.hanging(), { timeout: 5000, interval: 50 }).toBe(0); // the checker let go of every hung request
    // Idle keep-alive sockets close within the fixture's 100 ms keep-alive timeout.
    await expect.poll(fdCount, { timeout: 5000, interval: 50 }).toBeLessThanOrEqual(fds);
    console.log(
      `100 servers (10 hanging, timeout ${TIMEOUT_MS} ms, concurrency 32): cycle ${ms.toFixed(0)} ms; open fds ${fds} before, ${fdCount()} after`,
    );
  });

  it('lists them all with their latest status', async () => {
    const list = expectStatus(
      await call(server.httpUrl, 'GET', '/api/health/servers', { key: ADMIN }),
      200,
      'list',
    ).json;
    expect(list).toHaveLength(100);
    expect(list.filter((r: any) => r.status === 'up')).toHaveLength(90);
  });
});

describe('embedded monitor', () => {
  it('checks on the global interval, honours per-server intervals, and publishes each check', async () => {
    const server = await serve({
      monitor: { health_check_interval_seconds: 1 },
      servers: [
        { name: 'fast', transport: 'streamable_http', url: `${fx.url}/ok/fast/mcp` },
        {
          name: 'slow',
          transport: 'sse',
          url: `${fx.url}/ok/slow/sse`,
          health_check_interval_seconds: 3600,
        },
      ],
    });
    try {
      const events: string[] = [];
      const off = server.services.bus.subscribe(
        (e) =>
          e.type === 'health:check' && events.push((e.data as { server_name: string }).server_name),
      );
      // The first pass may already have happened at start; three more checks of `fast` take ~2-3 s.
      await collectEvents(
        server.services.bus,
        (e) =>
          e.type === 'health:check' && (e.data as { server_name: string }).server_name === 'fast',
        3,
      );
      off();
      const history = expectStatus(
        await call(server.httpUrl, 'GET', '/api/health/servers/slow/history', { key: ADMIN }),
        200,
        'history',
      ).json;
      expect(history).toHaveLength(1);
      expect(events.filter((n) => n === 'slow').length).toBeLessThanOrEqual(1);
      const fast = expectStatus(
        await call(server.httpUrl, 'GET', '/api/health/servers/fast/history?limit=100', {
          key: ADMIN,
        }),
        200,
        'history',
      ).json;
      expect(fast.length).toBeGreaterThanOrEqual(3);
      expect(fast.every((r: any) => r.status === 'up')).toBe(true);
    } finally {
      await server.dispose();
    }
  });

  it('stopping the server cancels checks in flight and ends their processes', async () => {
    const server = await serve({
      monitor: { health_check_interval_seconds: 60 },
      servers: [stdioFixture('stuck', 'ignore-sigterm', { timeout_seconds: 30 })],
    });
    let disposed = false;
    try {
      // Wait until the monitor's check has spawned the stdio server.
      await expect.poll(() => liveStdioGroups().length, { timeout: 10_000, interval: 20 }).toBe(1);
      const announced: unknown[] = [];
      server.services.bus.subscribe((e) => e.type === 'health:check' && announced.push(e));
      const t0 = performance.now();
      await server.dispose();
      disposed = true;
      expect(performance.now() - t0).toBeLessThan(3000);
      expect(announced).toEqual([]); // a cancelled check is not a result
      expect(liveStdioGroups()).toEqual([]);
      expect(childPids()).toEqual([]);
    } finally {
      if (!disposed) await server.dispose();
    }
  });
});
