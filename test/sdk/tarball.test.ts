import { execFile } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getJson } from '../helpers/spans.ts';
import { ROOT } from './consumer-dir.ts';

/**
 * Both packages as npm packs them: the SDK tarball installed into an empty project outside the
 * repository (no access to its node_modules, no network: `--offline`, which works only because the
 * SDK has no dependencies to fetch) runs an agent against a real server; the server's tarball holds
 * the compiled code, migrations and data it runs from, and none of the repository's tests or tools.
 */
const run = promisify(execFile);
const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    timeout: 120_000,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });

interface Packed {
  filename: string;
  size: number;
  entryCount: number;
  files: { path: string }[];
}

let server: TestServer;
let dir: string;
/** The SDK as `npm pack` makes it, once for the file: both SDK tests install this tarball. */
let packed: Packed;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-sdk-tarball-'));
  // dist/ is built by the test run's global setup (test/helpers/build.ts), so no scripts run here.
  const [started, { stdout }] = await Promise.all([
    startTestServer({ SPYGLASS_RATE_LIMITS: 'off' }),
    npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], join(ROOT, 'sdk')),
  ]);
  server = started;
  [packed] = JSON.parse(stdout) as [Packed];
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server?.dispose();
});

// Each test has its own project directory (and the server tarball its own npm run): side by side.
// Three npm runs at once outlast the default 30 s on a loaded machine (a run at load 25 did).
describe.concurrent('npm pack', { timeout: 90_000 }, () => {
  it('the SDK tarball installs alone into an empty project and its agent reports to a real server', async ({
    expect,
  }) => {
    expect(packed.files.map((f) => f.path)).toEqual(
      expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']),
    );
    expect(
      packed.files.filter((f) => !/^(package\.json|README\.md|dist\/.+\.(js|d\.ts))$/.test(f.path)),
    ).toEqual([]);
    expect(packed.size).toBeLessThan(200_000);

    const app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'app', private: true, type: 'module' }),
    );
    await npm(['install', '--offline', join(dir, packed.filename)], app);
    // The SDK and nothing else: its MCP and Redis clients are optional peers the agent brings.
    expect(readdirSync(join(app, 'node_modules')).filter((n) => !n.startsWith('.'))).toEqual([
      'spyglass-agent-sdk',
    ]);

    writeFileSync(
      join(app, 'agent.mjs'),
      `import { Spyglass } from 'spyglass-agent-sdk';
const sg = new Spyglass({ agentName: 'from-tarball' });
const id = await sg.session({ agentName: 'from-tarball' }, async (s) => {
  await sg.guard({ serverName: 'calc', toolName: 'tarball-add', args: { a: 1 } }, () => 2);
  return s.sessionId;
});
await sg.shutdown();
console.log(JSON.stringify({ id, stats: sg.stats() }));
`,
    );
    const out = await run(process.execPath, ['agent.mjs'], {
      cwd: app,
      env: { PATH: process.env.PATH ?? '', SPYGLASS_URL: server.httpUrl },
      timeout: 30_000,
    });
    const { id, stats } = JSON.parse(out.stdout.trim()) as {
      id: string;
      stats: { sent: number; buffered: number };
    };
    expect(stats).toMatchObject({ sent: 2, buffered: 0 });
    const spans = await getJson(`${server.httpUrl}/api/traces/spans?session_id=${id}`);
    expect((spans.json as { tool_name: string }[]).map((s) => s.tool_name).sort()).toEqual([
      'session',
      'tarball-add',
    ]);
  });

  it("docs/sdk.md's first agent runs to completion as written, in a project that installed the tarball", async ({
    expect,
  }) => {
    const doc = readFileSync(join(ROOT, 'docs/sdk.md'), 'utf8');
    const code = /`agent\.mjs`:\n\n```js\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(code).toContain("from 'spyglass-agent-sdk'");
    const app = join(dir, 'first-agent');
    mkdirSync(app);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'first-agent', private: true, type: 'module' }),
    );
    await npm(['install', '--offline', join(dir, packed.filename)], app);
    // The MCP packages the doc installs from the registry, linked from the repository's copies
    // (the same versions) so the test needs no network; the SDK itself comes from its tarball.
    mkdirSync(join(app, 'node_modules/@modelcontextprotocol'));
    mkdirSync(join(app, 'node_modules/.bin'), { recursive: true });
    for (const pkg of ['sdk', 'server-everything'])
      symlinkSync(
        join(ROOT, 'node_modules/@modelcontextprotocol', pkg),
        join(app, 'node_modules/@modelcontextprotocol', pkg),
        'dir',
      );
    symlinkSync(
      '../@modelcontextprotocol/server-everything/dist/index.js',
      join(app, 'node_modules/.bin/mcp-server-everything'),
    );
    writeFileSync(join(app, 'agent.mjs'), code!);
    // It exits by itself (client.close() ends the MCP server's process) with its spans sent.
    const out = await run(process.execPath, ['agent.mjs'], {
      cwd: app,
      env: {
        PATH: `${join(app, 'node_modules/.bin')}:${process.env.PATH ?? ''}`,
        SPYGLASS_URL: server.httpUrl,
      },
      timeout: 30_000,
    });
    expect(out.stdout).toContain('The sum of 2 and 3 is 5.');
    expect(out.stdout).toContain('sent: 3');
  });

  it('the server tarball holds the compiled code, migrations and shipped data, not the repository', async ({
    expect,
  }) => {
    const { stdout } = await npm(['pack', '--dry-run', '--ignore-scripts', '--json'], ROOT);
    const [serverPack] = JSON.parse(stdout) as Packed[];
    const paths = serverPack!.files.map((f) => f.path);
    expect(serverPack!.filename).toMatch(/^spyglass-server-/);
    expect(paths).toEqual(
      expect.arrayContaining([
        'bin/spyglass.js',
        'dist/cli/main.js',
        'dist/main.js',
        'drizzle/meta/_journal.json',
        'data/advisories/mcp-osv.json',
      ]),
    );
    expect(
      paths.filter(
        (p) =>
          /^(src|test|bench|scripts|sdk|examples|\.ci|node_modules|dist\/pglite-template)\//.test(
            p,
          ) ||
          p.endsWith('.ts') ||
          p.includes('tsbuildinfo'),
      ),
    ).toEqual([]);
  });
});
