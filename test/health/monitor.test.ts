import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveStdioGroups } from '../../src/health/stdio-process.ts';
import { startHttpFixtures, type HttpFixtures } from '../fixtures/mcp/http-fixtures.ts';
import { call, expectStatus } from '../helpers/auth.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  childPids,
  collectEvents,
  socketCount,
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
  /** monitor.concurrency 32 less concurrency_reserved's default (32 / 8) for other projects. */
  const SLOTS = 28;
  let remote: FixtureProcess;
  let app: InProcessApp;
  let dir: string;

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
          // Only the hung servers need the short deadline; these answer, however busy the machine.
          timeout_seconds: 30,
        };
      }),
    ];
    // API only, monitor off: the app in-process (test/helpers/in-process.ts), no listening socket.
    dir = tempDir();
    dirs.push(dir);
    app = await startInProcessApp({
      SPYGLASS_CONFIG: writeConfig(dir, { monitor: { enabled: false, concurrency: 32 }, servers }),
      SPYGLASS_API_KEYS: ADMIN,
      SPYGLASS_RATE_LIMITS: 'off',
    });
  });
  afterAll(async () => {
    await app?.close();
    await remote?.stop();
  });

  const cycle = async () =>
    expectStatus(await call(app, 'POST', '/api/health/check', { key: ADMIN }), 200, 'check')
      .json as any[];

  it('checks them side by side (every hung check and a full set of slots start before the first timeout fires), with no descriptor or process left behind', async () => {
    // Sockets and pipes, what a check holds: the embedded database opens files of its own now and
    // then (a table's first free-space map during the cycle's writes), which is no leak. Counted
    // before the first check (no warm-up cycle: 100 more checks cost 2-3 s of CPU), so nothing the
    // first checks of a server open (its drift baseline, the MCP client's first load) may stay open.
    const fds = socketCount();
    const children = childPids().sort();

    const results = await cycle();
    expect(results).toHaveLength(100);
    const down = results.filter((r) => r.status === 'down');
    expect(down.map((r) => r.server_name).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `hang-${i}`),
    );
    for (const r of down)
      expect(r.error).toBe(`timed out after ${TIMEOUT_MS} ms waiting for initialize`);
    expect(results.filter((r) => r.status === 'up')).toHaveLength(90);
    // Concurrency from the server's own records, not from a stopwatch: checked_at is when a check
    // started, and a hung check's timeout fires one TIMEOUT_MS after its start. The ten hung checks
    // all started before the first of them timed out (one after another, the cycle would take ten
    // timeouts), and while they hung the other slots kept checking: every slot the project may use
    // (32 less the 4 that monitor.concurrency_reserved keeps for other projects) was taken before the first timeout.
    const started = (r: any) => Date.parse(r.checked_at);
    const firstTimeout = Math.min(...down.map(started)) + TIMEOUT_MS;
    for (const r of down) expect(started(r), r.server_name).toBeLessThan(firstTimeout);
    const beforeFirstTimeout = results.filter((r) => started(r) < firstTimeout);
    expect(beforeFirstTimeout.length).toBeGreaterThanOrEqual(SLOTS);
    expect(beforeFirstTimeout.filter((r) => r.status === 'up').length).toBeGreaterThanOrEqual(
      SLOTS - down.length,
    );

    expect(childPids().sort()).toEqual(children);
    await expect.poll(() => remote.hanging(), { timeout: 5000, interval: 50 }).toBe(0); // the checker let go of every hung request
    // Idle keep-alive sockets close within the fixture's 100 ms keep-alive timeout.
    await expect.poll(socketCount, { timeout: 5000, interval: 50 }).toBeLessThanOrEqual(fds);
    console.log(
      `100 servers (10 hanging, timeout ${TIMEOUT_MS} ms, concurrency 32): ${beforeFirstTimeout.length} checks started before the first timeout; open sockets and pipes ${fds} before, ${socketCount()} after`,
    );
  }, 120_000); // a cycle of 100 checks on a busy machine; nothing here is timed

  it('lists them all with their latest status', async () => {
    const list = expectStatus(
      await call(app, 'GET', '/api/health/servers', { key: ADMIN }),
      200,
      'list',
    ).json;
    expect(list).toHaveLength(100);
    expect(list.filter((r: any) => r.status === 'up')).toHaveLength(90);
  });
});

// The first test waits on the monitor's interval and starts no process; the second's stdio server is
// the only process either starts: side by side.
describe('embedded monitor', { concurrent: true }, () => {
  it('checks on the global interval, honours per-server intervals, and publishes each check', async ({
    expect,
  }) => {
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
        (e) => e.type === 'health:check' && events.push(e.data.serverName),
      );
      // The first pass may already have happened at start; three more checks of `fast` take ~2-3 s.
      await collectEvents(
        server.services.bus,
        (e) => e.type === 'health:check' && e.data.serverName === 'fast',
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

  it('stopping the server cancels checks in flight and ends their processes', async ({
    expect,
  }) => {
    // Children of this test process from earlier files (the browser tests' shared Chromium) stay.
    const before = childPids().sort();
    const server = await serve({
      monitor: { health_check_interval_seconds: 60 },
      servers: [stdioFixture('stuck', 'ignore-sigterm', { timeout_seconds: 300 })],
    });
    let disposed = false;
    try {
      // Wait until the monitor's check has spawned the stdio server.
      await expect.poll(() => liveStdioGroups().length, { timeout: 10_000, interval: 20 }).toBe(1);
      const announced: unknown[] = [];
      server.services.bus.subscribe((e) => e.type === 'health:check' && announced.push(e));
      // The check's deadline (timeout_seconds: 300) is far beyond the test's: dispose() returning
      // at all shows it did not wait the check out. The check is cancelled, not timed out.
      await server.dispose();
      disposed = true;
      expect(announced).toEqual([]); // a cancelled check is not a result
      expect(liveStdioGroups()).toEqual([]);
      expect(childPids().sort()).toEqual(before);
    } finally {
      if (!disposed) await server.dispose();
    }
  });
});
