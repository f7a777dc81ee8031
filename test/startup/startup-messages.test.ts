import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HealthMonitor } from '../../src/health/monitor.ts';
import { startHttpFixtures, type HttpFixtures } from '../fixtures/mcp/http-fixtures.ts';
import { freePort } from '../helpers/free-port.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { writeConfig } from '../health/helpers.ts';
import { CHILD_NODE_FLAGS } from '../helpers/child-node.ts';

/** What `serve` says while it starts, and how the monitor reports a server going down and back. */
const BIN = fileURLToPath(new URL('../../bin/spyglass.js', import.meta.url));
let dir: string;
let fx: HttpFixtures;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-start-'));
  fx = await startHttpFixtures();
});
afterAll(async () => {
  await fx?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('spyglass serve start-up messages', () => {
  it(
    'names the config file, announces the first-start database creation and counts monitored servers',
    { timeout: 180_000 },
    async () => {
      const config = writeConfig(dir, {
        servers: [
          {
            name: 'gone',
            transport: 'streamable_http',
            url: `http://127.0.0.1:${await freePort()}/mcp`,
            timeout_seconds: 1,
          },
        ],
      });
      const env = {
        ...process.env,
        SPYGLASS_CONFIG: config,
        SPYGLASS_DATA_DIR: join(dir, 'data'),
        SPYGLASS_PORT: '0',
        SPYGLASS_GRPC_PORT: '0',
        SPYGLASS_LOG_LEVEL: 'info',
      };
      const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, BIN, 'serve'], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const messages: string[] = [];
      try {
        await new Promise<void>((resolve, reject) => {
          let buf = '';
          child.stderr.on('data', (d: Buffer) => {
            buf += String(d);
            let nl: number;
            while ((nl = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, nl);
              buf = buf.slice(nl + 1);
              // Every line on stderr is a JSON log record (a stray warning line breaks log shippers).
              try {
                messages.push((JSON.parse(line) as { msg: string }).msg);
              } catch {
                reject(new Error(`not a JSON log line on stderr: ${line}`));
                return;
              }
            }
            if (messages.some((m) => m.startsWith('MCP server gone is down'))) resolve();
          });
          child.once('exit', (code) =>
            reject(new Error(`serve exited (${code}): ${messages.join('\n')}`)),
          );
        });
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      const at = (prefix: string) => messages.findIndex((m) => m.startsWith(prefix));
      expect(messages[at('config: ')]).toBe(`config: read ${config}`);
      expect(messages[at('first start: ')]).toBe(
        `first start: creating the embedded database in ${join(dir, 'data', 'pglite')} from the build's template`,
      );
      expect(messages[at('health monitor: ')]).toBe(
        'health monitor: 1 MCP server(s) monitored (1 from the config file, 0 from the catalog)',
      );
      expect(at('config: ')).toBeLessThan(at('first start: '));
      expect(at('first start: ')).toBeLessThan(at('storage ready'));
      expect(messages[at('MCP server gone is down')]).toMatch(
        /^MCP server gone is down: connection refused/,
      );
    },
  );
});

describe('the health monitor log', () => {
  // The monitor is driven directly below: the app in-process is all it needs (no listening server).
  let server: InProcessApp;
  let proxy: Server;
  let up = true;
  const open = new Set<Socket>();

  beforeAll(async () => {
    // A TCP relay in front of the fixture: switching it off makes the server unreachable, like a crash.
    const target = Number(new URL(fx.url).port);
    proxy = createServer((s) => {
      if (!up) return void s.destroy();
      const t = connect(target, '127.0.0.1');
      for (const sock of [s, t]) {
        open.add(sock);
        sock.on('close', () => open.delete(sock));
        sock.on('error', () => {});
      }
      s.pipe(t).pipe(s);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const port = (proxy.address() as { port: number }).port;
    const config = writeConfig(join(dir), {
      monitor: { enabled: false },
      servers: [
        {
          name: 'flaky',
          transport: 'streamable_http',
          url: `http://127.0.0.1:${port}/ok/flaky/mcp`,
          timeout_seconds: 10,
        },
      ],
    });
    server = await startInProcessApp({ SPYGLASS_CONFIG: config });
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    for (const s of open) s.destroy();
    await new Promise((r) => proxy?.close(r));
  });

  it(
    'says once that a server went down and once that it came back, not on every check',
    { timeout: 60_000 },
    async () => {
      const lines: { msg: string; level: number }[] = [];
      const logger = pino(
        { level: 'info' },
        { write: (l: string) => void lines.push(JSON.parse(l) as { msg: string; level: number }) },
      );
      const statuses: string[] = [];
      const errors: (string | null)[] = [];
      let monitor: HealthMonitor | undefined;
      await new Promise<void>((resolve) => {
        monitor = new HealthMonitor(server.services.health, {
          // A fraction of the configurable minimum (1 s): the phases wait on reports, not on time.
          intervalSeconds: 0.1,
          logger,
          onReport: (r) => {
            statuses.push(r.result.status);
            errors.push(r.result.error);
            // A check may start before the previous one is reported, so each phase waits for its status.
            const downs = statuses.filter((x) => x === 'down').length;
            if (up && downs === 0 && r.result.status === 'up') {
              up = false;
              for (const s of open) s.destroy();
            } else if (!up && downs >= 2) {
              up = true;
            } else if (up && downs >= 2 && r.result.status === 'up') {
              resolve();
            }
          },
        });
        monitor.start();
      });
      await monitor?.stop();
      // Up, down at least twice in a row, up again.
      expect(statuses.join(' '), errors.join('; ')).toMatch(/^(up )+down down (down )*(up )*up$/);
      const transitions = lines
        .filter((l) => /^MCP server flaky/.test(l.msg))
        .map((l) => [l.level, l.msg.replace(/: .*/, '')]);
      expect(transitions).toEqual([
        [40, 'MCP server flaky is down'],
        [30, 'MCP server flaky is back (up)'],
      ]);
    },
  );
});
