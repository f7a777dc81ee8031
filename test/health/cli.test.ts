import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startHttpFixtures, type HttpFixtures } from '../fixtures/mcp/http-fixtures.ts';
import { poolCliStores, runCli, runCliInProcess } from '../helpers/cli.ts';
import { seedPglite } from '../helpers/data-dir.ts';
import { freePort } from '../helpers/free-port.ts';
import { childPids, tempDir, writeConfig } from './helpers.ts';
import { CHILD_NODE_FLAGS } from '../helpers/child-node.ts';

/** `spyglass check` and `spyglass monitor` as a user runs them, against fixture servers. */
const BIN = fileURLToPath(new URL('../../bin/spyglass.js', import.meta.url));
let dir: string;
let fx: HttpFixtures;
let config: string;
/**
 * The environment of one test: the shared config and a data directory of its own (a copy of the
 * run's migrated PGlite), so that tests in one describe can run side by side.
 */
const envFor = (name: string): Record<string, string> => ({
  SPYGLASS_CONFIG: config,
  SPYGLASS_DATA_DIR: seedPglite(join(dir, name)),
  SPYGLASS_LOG_LEVEL: 'error',
});

beforeAll(async () => {
  dir = tempDir();
  fx = await startHttpFixtures();
  const closed = await freePort();
  config = writeConfig(dir, {
    servers: [
      { name: 'ok', transport: 'streamable_http', url: `${fx.url}/ok/cli/mcp` },
      { name: 'gone', transport: 'sse', url: `http://127.0.0.1:${closed}/sse`, timeout_seconds: 1 },
    ],
  });
});

// In-process commands run on a pooled embedded database per data directory (test/helpers/cli.ts);
// the processes (runCli, the daemon) open theirs.
poolCliStores();

afterAll(async () => {
  await fx?.close();
  rmSync(dir, { recursive: true, force: true });
});

// Within each describe (one after the other) the tests have data directories of their own and at most
// one starts a process (the daemon test counts this process's children): side by side.
describe('spyglass check', () => {
  it.concurrent(
    'checks every server; --json adds schema_drift; exit code 1 when one is down',
    { timeout: 90_000 },
    async ({ expect }) => {
      // The real process: a command's failure code (process.exitCode) is its exit status.
      const r = await runCli(['check', '--json'], envFor('check-json'));
      expect(r.code, r.stderr).toBe(1);
      const rows = JSON.parse(r.stdout);
      expect(rows.map((x: any) => [x.server_name, x.status])).toEqual([
        ['gone', 'down'],
        ['ok', 'up'],
      ]);
      expect(rows[1]).toMatchObject({ schema_drift: false, tools_count: 2, error: null });
      expect(rows[0].error).toMatch(/^connection refused/);
    },
  );

  it.concurrent(
    '--server checks one; exit code 0 when it is up; the table is for people',
    { timeout: 60_000 },
    async ({ expect }) => {
      const env = envFor('check-server');
      const r = await runCliInProcess(['check', '--server', 'ok'], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/│ ok\s+│ up\s+│/);
      expect((await runCliInProcess(['check', '--server', 'nope'], env)).stderr).toMatch(
        /no configured server named nope/,
      );
    },
  );
});

describe('spyglass monitor', () => {
  it.concurrent(
    '--once runs one pass and exits non-zero when a server is down',
    { timeout: 60_000 },
    async ({ expect }) => {
      const r = await runCliInProcess(['monitor', '--once', '--json'], envFor('monitor-once'));
      expect(r.code, r.stderr).toBe(1);
      // JSON lines, one object per check, like the daemon prints.
      expect(
        r.stdout
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l).status),
      ).toEqual(['down', 'up']);
    },
  );

  it.concurrent(
    'runs as a daemon on its interval until SIGTERM, then exits cleanly',
    { timeout: 60_000 },
    async ({ expect }) => {
      const before = childPids();
      const child = spawn(
        process.execPath,
        [...CHILD_NODE_FLAGS, BIN, 'monitor', '--interval', '1', '--json'],
        {
          env: { ...process.env, ...envFor('monitor-daemon') },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      try {
        const lines = await new Promise<any[]>((resolve, reject) => {
          let out = '';
          const seen: any[] = [];
          child.stdout.on('data', (d: Buffer) => {
            out += String(d);
            let nl: number;
            while ((nl = out.indexOf('\n')) >= 0) {
              seen.push(JSON.parse(out.slice(0, nl)));
              out = out.slice(nl + 1);
            }
            // Two passes: both servers checked twice, one interval apart.
            if (seen.filter((l) => l.server_name === 'ok').length >= 2) resolve(seen);
          });
          child.once('exit', (code) => reject(new Error(`monitor exited early (${code})`)));
        });
        // The first two passes (a busy machine may deliver a third in the same chunk).
        const ok = lines.filter((l) => l.server_name === 'ok').slice(0, 2);
        expect(ok.map((l) => l.status)).toEqual(['up', 'up']);
        expect(Date.parse(ok[1].checked_at) - Date.parse(ok[0].checked_at)).toBeGreaterThanOrEqual(
          900,
        );
        const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      expect(childPids()).toEqual(before);
    },
  );
});
