import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveStdioGroups } from '../../src/health/stdio-process.ts';
import { call, expectStatus } from '../helpers/auth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  childPids,
  collectEvents,
  EVERYTHING,
  startEverything,
  tempDir,
  writeConfig,
  type Everything,
} from './helpers.ts';

/** The real @modelcontextprotocol/server-everything over all three transports, through the real API. */
const ADMIN = `sg_${'e'.repeat(64)}`;
const NAMES = ['everything-http', 'everything-sse', 'everything-stdio'];
let dir: string;
let sse: Everything;
let http: Everything;
let server: TestServer;

beforeAll(async () => {
  dir = tempDir();
  [sse, http] = await Promise.all([startEverything('sse'), startEverything('streamableHttp')]);
  const config = writeConfig(dir, {
    monitor: { enabled: false },
    servers: [
      {
        name: 'everything-stdio',
        transport: 'stdio',
        command: process.execPath,
        args: [EVERYTHING, 'stdio'],
        health_tool: 'echo',
        health_tool_args: { message: 'ping' },
      },
      { name: 'everything-sse', transport: 'sse', url: sse.url },
      {
        name: 'everything-http',
        transport: 'streamable_http',
        url: http.url,
        health_tool: 'get-sum',
        health_tool_args: { a: 1, b: 2 },
      },
    ],
  });
  server = await startTestServer({
    SPYGLASS_CONFIG: config,
    SPYGLASS_API_KEYS: ADMIN,
    SPYGLASS_RATE_LIMITS: 'off',
  });
});

afterAll(async () => {
  await server?.dispose();
  await Promise.all([sse?.stop(), http?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('server-everything over stdio, SSE and streamable HTTP', () => {
  it('is up on every transport with its 13 tools, and the hash is stable across checks', async () => {
    const before = childPids().sort();
    const events = collectEvents(server.services.bus, (e) => e.type === 'health:check', 6);
    const first = expectStatus(
      await call(server.httpUrl, 'POST', '/api/health/check', { key: ADMIN }),
      200,
      'check',
    ).json;
    const second = expectStatus(
      await call(server.httpUrl, 'POST', '/api/health/check', { key: ADMIN }),
      200,
      'check',
    ).json;

    for (const round of [first, second]) {
      expect(round.map((r: any) => r.server_name)).toEqual(NAMES);
      for (const r of round) {
        expect(r, JSON.stringify(r)).toMatchObject({
          status: 'up',
          tools_count: 13,
          error: null,
          schema_drift: false,
          protocol_version: '2025-11-25',
          project_id: 'default',
        });
        expect(r.server_info).toMatchObject({ name: 'mcp-servers/everything' });
        expect(r.latency_ms).toBeGreaterThan(0);
        expect(r.schema_hash).toMatch(/^[0-9a-f]{64}$/);
      }
    }
    expect(second.map((r: any) => r.schema_hash)).toEqual(first.map((r: any) => r.schema_hash));

    // Each completed check was announced and counted.
    const seen = await events;
    expect(seen.map((e) => (e.data as { serverName: string }).serverName).sort()).toEqual(
      [...NAMES, ...NAMES].sort(),
    );
    const metrics = await server.services.metrics.registry.getSingleMetricAsString(
      'spyglass_health_checks_total',
    );
    for (const name of NAMES)
      expect(metrics).toContain(`spyglass_health_checks_total{server="${name}",status="up"} 2`);

    // The stdio server is gone after each check.
    expect(childPids().sort()).toEqual(before);
    expect(liveStdioGroups()).toEqual([]);
  });

  it('lists the latest result per server and keeps the history newest first', async () => {
    const list = expectStatus(
      await call(server.httpUrl, 'GET', '/api/health/servers', { key: ADMIN }),
      200,
      'list',
    ).json;
    expect(list.map((r: any) => [r.server_name, r.status])).toEqual(NAMES.map((n) => [n, 'up']));
    const one = expectStatus(
      await call(server.httpUrl, 'GET', '/api/health/servers/everything-sse', { key: ADMIN }),
      200,
      'one',
    ).json;
    expect(Object.keys(one)).toEqual(
      expect.arrayContaining([
        'server_name',
        'status',
        'latency_ms',
        'tools_count',
        'schema_hash',
        'error',
        'checked_at',
      ]),
    );
    const history = expectStatus(
      await call(server.httpUrl, 'GET', '/api/health/servers/everything-stdio/history?limit=5', {
        key: ADMIN,
      }),
      200,
      'history',
    ).json;
    expect(history).toHaveLength(2);
    expect(Date.parse(history[0].checked_at)).toBeGreaterThanOrEqual(
      Date.parse(history[1].checked_at),
    );
    expect(
      (
        await call(server.httpUrl, 'GET', '/api/health/servers/everything-stdio/drift-history', {
          key: ADMIN,
        })
      ).json,
    ).toEqual([]);
  });
});
