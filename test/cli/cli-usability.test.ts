import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TOOLS } from '../fixtures/mcp/tool-server.ts';
import { startHttpFixtures, type HttpFixtures } from '../fixtures/mcp/http-fixtures.ts';
import { backends } from '../helpers/backends.ts';
import { runCli as runCliWith } from '../../src/cli/run.ts';
import { runCli, runCliInProcess } from '../helpers/cli.ts';
import { freePort } from '../helpers/free-port.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { tempDir, writeConfig, writeTools } from '../health/helpers.ts';

/** The CLI as a first-time user meets it: --version, --url mistakes, empty configs, drift in tables. */
const ADMIN = `sg_${'d'.repeat(64)}`;
const pg = backends.find((b) => b.name === 'postgres' && b.available);
let dir: string;
let fx: HttpFixtures;
let server: TestServer;
let closed: number;

beforeAll(async () => {
  dir = tempDir();
  fx = await startHttpFixtures({ toolsDir: dir });
  closed = await freePort();
  writeTools(join(dir, 'drifty.json'), DEFAULT_TOOLS);
  const config = writeConfig(dir, {
    monitor: { enabled: false },
    servers: [
      { name: 'drifty', transport: 'streamable_http', url: `${fx.url}/ok/drifty/mcp` },
      {
        name: 'gone',
        transport: 'streamable_http',
        url: `http://127.0.0.1:${closed}/mcp`,
        timeout_seconds: 1,
      },
    ],
  });
  server = await startTestServer({
    SPYGLASS_CONFIG: config,
    SPYGLASS_API_KEYS: ADMIN,
    SPYGLASS_RATE_LIMITS: 'off',
    ...(pg ? await pg.env() : {}),
  });
}, 180_000);
afterAll(async () => {
  await server?.dispose();
  await fx?.close();
  rmSync(dir, { recursive: true, force: true });
});

const remote = () => ['--url', server.httpUrl, '--api-key', ADMIN];

describe('spyglass --version', () => {
  it('prints the package version', async () => {
    const { version } = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${version}\n`);
  });
});

describe('--url failures say what to do', () => {
  it('a missing scheme', async () => {
    const r = await runCli(['api-key', 'list', '--url', 'localhost:8000']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'spyglass: --url (SPYGLASS_URL) must be a full address starting with http:// or https:// (got "localhost:8000"; for example http://localhost:8000)\n',
    );
  });

  it('nothing listening', async () => {
    const r = await runCliInProcess(['check', '--url', `http://127.0.0.1:${closed}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `spyglass: nothing is listening at http://127.0.0.1:${closed}; start it with \`spyglass serve\`, or fix --url (SPYGLASS_URL)\n`,
    );
  });

  it('401 without a key names --api-key and SPYGLASS_API_KEY; a wrong key is called refused', async () => {
    const none = await runCliInProcess(['api-key', 'list', '--url', server.httpUrl], {
      SPYGLASS_API_KEY: '',
    });
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      `spyglass: 401: the server at ${server.httpUrl} requires an API key; pass --api-key <key> or set SPYGLASS_API_KEY\n`,
    );
    const wrong = await runCliInProcess([
      'api-key',
      'list',
      '--url',
      server.httpUrl,
      '--api-key',
      `sg_${'0'.repeat(64)}`,
    ]);
    expect(wrong.stderr).toMatch(/^spyglass: 401: the server refused the API key/);
  });
});

describe('spyglass monitor --once --json', () => {
  it('prints JSON lines, one object per check, as its help says', async () => {
    const r = await runCliInProcess(['monitor', '--once', '--json', ...remote()]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(
      lines.map((l) => (JSON.parse(l) as { server_name: string; status: string }).status).sort(),
    ).toEqual(['down', 'up']);
  });
});

describe('spyglass monitor in-process (src/cli/run.ts)', () => {
  it('runs until its signal aborts and never listens to the process signals', async () => {
    const ac = new AbortController();
    const lines: string[] = [];
    const sigint = process.listenerCount('SIGINT');
    let sigintDuringRun = -1;
    const code = await runCliWith(['monitor', '--interval', '1', '--json', ...remote()], {
      stdout: {
        write: (s: string) => {
          lines.push(s);
          sigintDuringRun = process.listenerCount('SIGINT');
          ac.abort();
        },
      },
      stderr: { write: () => true },
      env: process.env,
      cwd: process.cwd(),
      signal: ac.signal,
    });
    expect(code).toBe(0);
    expect(lines).toHaveLength(2); // the one pass over both servers, then stopped
    expect(sigintDuringRun).toBe(sigint);
  });

  it('refuses to run until stopped without a signal', async () => {
    const r = await runCliInProcess(['monitor', ...remote()]);
    expect([r.code, r.stderr]).toEqual([
      1,
      'spyglass: monitor without --once runs until stopped: give the in-process run a signal\n',
    ]);
  });
});

describe('spyglass check', () => {
  it(
    'lists each drift change in the table, and stdout holds nothing but the table',
    { timeout: 60_000 },
    async () => {
      await runCliInProcess(['check', '--server', 'drifty', ...remote()]); // baseline
      writeTools(join(dir, 'drifty.json'), [DEFAULT_TOOLS[0]]);
      const r = await runCliInProcess(['check', '--server', 'drifty', ...remote()], {
        SPYGLASS_LOG_LEVEL: 'debug',
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/│ drifty\s+│ degraded\s+│/);
      expect(r.stdout).toMatch(/│ BREAKING tool_removed ping\s+│/);
      for (const line of r.stdout.trimEnd().split('\n')) expect(line).toMatch(/^[┌│├└]/);
    },
  );

  it('with no servers configured says how to add one', { timeout: 180_000 }, async () => {
    const empty = tempDir();
    try {
      const env = {
        SPYGLASS_CONFIG: writeConfig(empty, { monitor: { enabled: false } }),
        SPYGLASS_DATA_DIR: join(empty, 'data'),
        ...(pg ? await pg.env() : {}),
      };
      const r = await runCliInProcess(['check'], env);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(
        'spyglass: no MCP servers are configured, so there is nothing to check. Add one to spyglass.yaml',
      );
      expect(r.stderr).toContain('  servers:\n    - name: everything\n      transport: stdio');
      expect(r.stderr).toContain('PUT /api/servers/metadata/<name>');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
