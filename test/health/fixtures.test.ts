import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { liveStdioGroups } from '../../src/health/stdio-process.ts';
import {
  FIXTURE_TOKEN,
  startHttpFixtures,
  type HttpFixtures,
} from '../fixtures/mcp/http-fixtures.ts';
import { call, expectStatus } from '../helpers/auth.ts';
import { freePort } from '../helpers/free-port.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { DRIFT_CASES } from './drift-cases.ts';
import {
  childPids,
  processesWith,
  stdioFixture,
  tempDir,
  writeConfig,
  writeTools,
} from './helpers.ts';

/**
 * Fixture MCP servers written with the SDK (test/fixtures/mcp), checked through the real API:
 * drift of every change type, hangs, refusals, failing tools/list and probes, crashes, auth, and
 * stdio servers that will not die.
 */
const ADMIN = `sg_${'f'.repeat(64)}`;
const MARKER = `spyglass-grandchild-${randomUUID()}`;
let dir: string;
let fx: HttpFixtures;
let server: InProcessApp; // API only: in-process (app.inject), no listening socket

beforeAll(async () => {
  dir = tempDir();
  fx = await startHttpFixtures({ toolsDir: dir });
  const closed = await freePort();
  writeTools(join(dir, 'stdio-drift.json'), [{ name: 'a', inputSchema: { type: 'object' } }]);
  writeTools(join(dir, 'invalid.json'), [
    { name: 'ok', inputSchema: { type: 'object' } },
    {
      name: 'broken',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object', properties: { x: { type: 'nonsense' } } },
    },
  ]);
  const http = (name: string, path: string, extra: Record<string, unknown> = {}) => ({
    name,
    transport: path.endsWith('/sse') ? 'sse' : 'streamable_http',
    url: `${fx.url}${path}`,
    ...extra,
  });
  const config = writeConfig(dir, {
    monitor: { enabled: false },
    servers: [
      ...DRIFT_CASES.map((c) => http(`drift-${c.id}`, `/ok/drift-${c.id}/mcp`)),
      stdioFixture(
        'stdio-drift',
        'normal',
        {},
        { FIXTURE_TOOLS_FILE: join(dir, 'stdio-drift.json') },
      ),
      stdioFixture('hang-stdio', 'hang', { timeout_seconds: 1 }),
      http('hang-http', '/hang/a/mcp', { timeout_seconds: 1 }),
      http('hang-sse', '/hang/b/sse', { timeout_seconds: 1 }),
      { name: 'refused-http', transport: 'streamable_http', url: `http://127.0.0.1:${closed}/mcp` },
      { name: 'refused-sse', transport: 'sse', url: `http://127.0.0.1:${closed}/sse` },
      http('fail-list-http', '/fail-list/mcp'),
      stdioFixture('fail-list-stdio', 'fail-list'),
      http('fail-probe-http', '/fail-probe/mcp', { health_tool: 'ping' }),
      stdioFixture('fail-probe-stdio', 'fail-probe', {
        health_tool: 'read_file',
        health_tool_args: { path: '/etc/hostname' },
      }),
      http('probe-ok-sse', '/ok/probe/sse', { health_tool: 'ping' }),
      stdioFixture('crash-stdio', 'crash'),
      http('crash-http', '/crash/mcp'),
      stdioFixture('sigterm-stdio', 'ignore-sigterm', { timeout_seconds: 1 }),
      stdioFixture('grandchild-stdio', 'grandchild', {}, { FIXTURE_MARKER: MARKER }),
      { name: 'missing-command', transport: 'stdio', command: 'spyglass-no-such-command' },
      http('auth-missing', '/auth/mcp'),
      http('auth-ok', '/auth/mcp', { headers: { Authorization: `Bearer ${FIXTURE_TOKEN}` } }),
      http('invalid-schema', '/ok/invalid/mcp'),
    ],
  });
  server = await startInProcessApp({
    SPYGLASS_CONFIG: config,
    SPYGLASS_API_KEYS: ADMIN,
    SPYGLASS_RATE_LIMITS: 'off',
  });
});

afterAll(async () => {
  await server?.close();
  await fx?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function check(name: string): Promise<any> {
  const res = expectStatus(
    await call(server, 'POST', '/api/health/check', {
      key: ADMIN,
      body: { server_name: name },
    }),
    200,
    `check ${name}`,
  );
  expect(res.json).toHaveLength(1);
  return res.json[0];
}

describe('drift between checks, one test per change type', () => {
  it.each(DRIFT_CASES.map((c) => [c.id, c] as const))('%s', async (_id, c) => {
    const name = `drift-${c.id}`;
    writeTools(join(dir, `drift-${c.id}.json`), c.before.tools, c.before.instructions);
    const first = await check(name);
    expect(first).toMatchObject({ status: 'up', schema_drift: false, drift: null });

    writeTools(join(dir, `drift-${c.id}.json`), c.after.tools, c.after.instructions);
    const second = await check(name);
    expect(second).toMatchObject({ status: 'degraded', schema_drift: true });
    expect(second.error).toMatch(/schema drift/);
    expect(second.drift.changes).toEqual([expect.objectContaining(c.expected)]);
    expect(second.drift).toMatchObject({
      classification: c.expected.classification,
      previous_hash: first.schema_hash,
      current_hash: second.schema_hash,
    });

    const history = expectStatus(
      await call(server, 'GET', `/api/health/servers/${name}/drift-history`, {
        key: ADMIN,
      }),
      200,
      'drift history',
    ).json;
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      id: second.drift.id,
      server_name: name,
      previous_hash: first.schema_hash,
      current_hash: second.schema_hash,
    });
    expect(history[0].changes).toEqual(second.drift.changes);
  });

  it('the new schema becomes the baseline: the next check is up again', async () => {
    const name = `drift-${DRIFT_CASES[0]?.id}`;
    expect(await check(name)).toMatchObject({ status: 'up', schema_drift: false });
  });

  it('works the same over stdio (the fixture reads its tools from a file the test rewrites)', async () => {
    expect(await check('stdio-drift')).toMatchObject({ status: 'up', tools_count: 1 });
    writeTools(join(dir, 'stdio-drift.json'), [
      { name: 'a', inputSchema: { type: 'object' } },
      { name: 'b', inputSchema: { type: 'object' } },
    ]);
    const r = await check('stdio-drift');
    expect(r).toMatchObject({ status: 'degraded', tools_count: 2, schema_drift: true });
    expect(r.drift.changes).toEqual([
      expect.objectContaining({
        change_type: 'tool_added',
        classification: 'COMPATIBLE',
        tool_name: 'b',
      }),
    ]);
  });
});

describe('failures', () => {
  // The deadline is what the error names; that nothing outlives it is shown by what is left
  // afterwards (no request still open at the fixture, no stdio process group), not by timing.
  const hangs = async (name: string, { expect }: TestContext) => {
    const r = await check(name);
    expect(r).toMatchObject({
      status: 'down',
      latency_ms: null,
      tools_count: null,
      schema_hash: null,
    });
    expect(r.error).toMatch(/^timed out after 1000 ms waiting for initialize$/);
    await expect.poll(() => fx.hanging(), { timeout: 5_000 }).toBe(0);
    expect(liveStdioGroups()).toEqual([]);
  };
  it.for(['hang-stdio'])(
    '%s: down with a timeout message, leaving nothing open',
    { timeout: 20_000 },
    hangs,
  );
  // The HTTP ones start no process, so they wait out their deadlines side by side.
  it.concurrent.for(['hang-http', 'hang-sse'])(
    '%s: down with a timeout message, leaving nothing open',
    { timeout: 20_000 },
    hangs,
  );

  it.each(['refused-http', 'refused-sse'])('%s: a refused connection is down', async (name) => {
    const r = await check(name);
    expect(r).toMatchObject({ status: 'down' });
    expect(r.error).toMatch(/^connection refused \(127\.0\.0\.1:\d+\)$/);
  });

  it.each(['fail-list-http', 'fail-list-stdio'])(
    '%s: a failing tools/list is down',
    async (name) => {
      const r = await check(name);
      expect(r).toMatchObject({ status: 'down' });
      expect(r.error).toMatch(/tools\/list failed: .*tool registry unavailable/);
    },
  );

  it.each([
    ['fail-probe-http', 'ping'],
    ['fail-probe-stdio', 'read_file'],
  ])(
    '%s: a failing probe tool is degraded (MCP answers, the backend does not)',
    async (name, tool) => {
      const r = await check(name);
      expect(r).toMatchObject({ status: 'degraded', tools_count: 2 });
      expect(r.error).toBe(`health tool ${tool} reported an error: database connection lost`);
    },
  );

  it('a passing probe keeps the server up (SSE)', async () => {
    expect(await check('probe-ok-sse')).toMatchObject({
      status: 'up',
      tools_count: 2,
      error: null,
    });
  });

  it('a stdio server that crashes mid-handshake is down with its exit code and stderr', async () => {
    const r = await check('crash-stdio');
    expect(r).toMatchObject({ status: 'down' });
    expect(r.error).toBe(
      'server exited during initialize (exit code 3): fatal: config file missing',
    );
  });

  it('an HTTP server that drops the connection mid-handshake is down', async () => {
    const r = await check('crash-http');
    expect(r).toMatchObject({
      status: 'down',
      error: 'connection closed by the server during initialize',
    });
  });

  it('a stdio command that does not exist is down', async () => {
    expect(await check('missing-command')).toMatchObject({
      status: 'down',
      error: 'could not start spyglass-no-such-command: command not found',
    });
  });

  it('an authenticated server: 401 without headers (down, auth error), up with the configured header', async () => {
    const denied = await check('auth-missing');
    expect(denied.status).toBe('down');
    expect(denied.error).toMatch(
      /^authentication failed \(HTTP 401\); WWW-Authenticate: Bearer resource_metadata=/,
    );
    expect(await check('auth-ok')).toMatchObject({ status: 'up', tools_count: 2 });
  });

  it('a tool schema that does not compile is degraded ("invalid tool schema"), not down', async () => {
    const r = await check('invalid-schema');
    expect(r).toMatchObject({ status: 'degraded', tools_count: 2 });
    expect(r.error).toMatch(/^tool broken: outputSchema: /);
  });
});

describe('process cleanup', () => {
  it('a stdio server that ignores SIGTERM (and stdin EOF) is still ended', async () => {
    const before = childPids().sort();
    const r = await check('sigterm-stdio');
    expect(r).toMatchObject({ status: 'down' });
    expect(r.error).toMatch(/timed out after 1000 ms/);
    expect(childPids().sort()).toEqual(before);
    expect(liveStdioGroups()).toEqual([]);
  });

  it('processes a stdio server started are ended with it (the whole process group)', async () => {
    expect(await check('grandchild-stdio')).toMatchObject({ status: 'up' });
    expect(processesWith(MARKER)).toEqual([]);
    expect(liveStdioGroups()).toEqual([]);
  });
});
