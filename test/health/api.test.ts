import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveCheck } from '../../src/store/health-repo.ts';
import { LOCAL_ADMIN } from '../../src/auth/principal.ts';
import type { CheckedStatus, HealthResult } from '../../src/model/health.ts';
import { startHttpFixtures, type HttpFixtures } from '../fixtures/mcp/http-fixtures.ts';
import { call, createKey, createProject, expectStatus } from '../helpers/auth.ts';
import { serverBackends } from '../helpers/backends.ts';
import { freePort } from '../helpers/free-port.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { startTestServer } from '../helpers/server.ts';
import { nativeSpan } from '../helpers/spans.ts';
import { tempDir, writeConfig } from './helpers.ts';

/** The health API of docs/health.md#rest (and its GraphQL twin): limits, scoping, derived states, blast radius. */
const ADMIN = `sg_${'a'.repeat(63)}b`;
let dir: string;
let fx: HttpFixtures;
/** The API in-process (app.inject); the retention-at-start test starts real servers of its own. */
let server: InProcessApp;
let viewer: string;
let p2Admin: string;

const get = async (path: string, key = ADMIN) => call(server, 'GET', path, { key });
const post = async (path: string, body?: unknown, key = ADMIN) =>
  call(server, 'POST', path, { key, body });
const gql = async (query: string, key = ADMIN) => (await post('/graphql', { query }, key)).json;

function result(
  name: string,
  checkedAt: Date,
  status: CheckedStatus = 'up',
  projectId = 'default',
): HealthResult & { status: CheckedStatus } {
  return {
    id: randomUUID(),
    projectId,
    serverName: name,
    status,
    latencyMs: 12.5,
    toolsCount: 2,
    schemaHash: 'a'.repeat(64),
    error: null,
    checkedAt,
    schemaDrift: false,
    transport: 'streamable_http',
    serverInfo: null,
    protocolVersion: '2025-11-25',
  };
}

async function ingest(spans: Record<string, unknown>[], key = ADMIN): Promise<void> {
  for (let i = 0; i < spans.length; i += 5000) {
    expectStatus(await post('/api/traces/spans', spans.slice(i, i + 5000), key), 202, 'ingest');
  }
}

/** `agents` agents, each with `sessions` sessions of one call, on `server`. */
function traffic(
  server: string,
  agents: number,
  sessions: number,
  over: Record<string, unknown> = {},
): Record<string, unknown>[] {
  return Array.from({ length: agents * sessions }, (_, i) =>
    nativeSpan({
      server_name: server,
      agent_name: `agent-${Math.floor(i / sessions)}`,
      session_id: `${server}-s${i}`,
      trace_id: `${server}-t${i}`,
      ...over,
    }),
  );
}

describe.each(serverBackends)('$name', ({ name, available, env }) => {
  describe.runIf(available)(
    available ? 'health API' : `health API (skipped: no ${name} in this run)`,
    () => {
      beforeAll(async () => {
        dir = tempDir();
        fx = await startHttpFixtures();
        const closed = await freePort();
        const config = writeConfig(dir, {
          monitor: { enabled: false },
          // The catalog entry below points at the loopback fixtures, which the operator opens here.
          network: { allow_private_targets: ['127.0.0.0/8'] },
          servers: [
            { name: 'alpha', transport: 'streamable_http', url: `${fx.url}/ok/alpha/mcp` },
            { name: 'never', transport: 'streamable_http', url: `http://127.0.0.1:${closed}/mcp` },
            {
              name: 'stale-one',
              transport: 'sse',
              url: `${fx.url}/ok/stale/sse`,
              health_check_interval_seconds: 60,
              timeout_seconds: 5,
            },
          ],
        });
        server = await startInProcessApp({
          ...(await env()),
          SPYGLASS_CONFIG: config,
          SPYGLASS_API_KEYS: ADMIN,
          SPYGLASS_RATE_LIMITS: 'off',
        });
        viewer = (await createKey(server, ADMIN, { role: 'viewer' })).key;
        await createProject(server, ADMIN, 'p2');
        p2Admin = (await createKey(server, ADMIN, { role: 'admin', project_id: 'p2' })).key;
        expectStatus(
          await call(server, 'PUT', '/api/servers/metadata/catalogued?project_id=p2', {
            key: ADMIN,
            body: { transport: 'sse', url: `${fx.url}/ok/cat/sse` },
          }),
          200,
          'catalog',
        );
      });

      afterAll(async () => {
        await server?.close();
        await fx?.close();
        rmSync(dir, { recursive: true, force: true });
      });

      describe('reads and derived states', () => {
        it('lists configured servers: never checked is unknown, an old result is stale', async () => {
          await saveCheck(server.services.store.db, {
            result: result('stale-one', new Date(Date.now() - 66_000)),
            instructions: null,
            tools: null,
            drift: null,
          });
          const list = expectStatus(
            await get('/api/health/servers?project_id=default'),
            200,
            'list',
          ).json;
          expect(list.map((r: any) => [r.server_name, r.status])).toEqual([
            ['alpha', 'unknown'],
            ['never', 'unknown'],
            ['stale-one', 'stale'],
          ]);
          expect(list[0]).toMatchObject({
            latency_ms: null,
            tools_count: null,
            schema_hash: null,
            error: null,
            checked_at: null,
          });
          expect((await get('/api/health/servers/stale-one')).json).toMatchObject({
            status: 'stale',
            latency_ms: 12.5,
          });
        });

        it('a recent result reads as stored; a server without data is 404', async () => {
          await saveCheck(server.services.store.db, {
            result: result('stale-one', new Date(Date.now() - 64_000), 'degraded'),
            instructions: null,
            tools: null,
            drift: null,
          });
          expect((await get('/api/health/servers/stale-one')).json.status).toBe('degraded');
          const missing = await get('/api/health/servers/never');
          expect(missing.status).toBe(404);
          expect(missing.json).toEqual({ detail: 'no health data for server never' });
        });

        it('enforces the limits of spec §8 with 422 and loc', async () => {
          for (const path of [
            '/api/health/servers/alpha/history?limit=0',
            '/api/health/servers/alpha/history?limit=101',
            '/api/health/servers/alpha/drift-history?limit=x',
          ]) {
            const r = await get(path);
            expect(r.status, path).toBe(422);
            expect(r.json.detail[0].loc).toEqual(['query', 'limit']);
          }
          expect((await get('/api/health/servers/alpha/history?limit=100')).status).toBe(200);
          const noTool = await get('/api/health/servers/alpha/drift-impact');
          expect(noTool.status).toBe(422);
          expect(noTool.json.detail).toEqual([
            expect.objectContaining({ loc: ['query', 'tool_name'], type: 'missing' }),
          ]);
          expect(
            (await get('/api/health/servers/alpha/drift-impact?tool_name=x&hours=169')).json
              .detail[0].loc,
          ).toEqual(['query', 'hours']);
          expect(
            (await get('/api/health/servers/alpha/drift-impact?tool_name=x&hours=168')).status,
          ).toBe(200);
          expect((await get('/api/health/servers/alpha/blast-radius?hours=0')).status).toBe(422);
        });
      });

      describe('POST /api/health/check', () => {
        it('needs write access', async () => {
          expect((await call(server, 'POST', '/api/health/check')).status).toBe(401);
          expect((await post('/api/health/check', {}, viewer)).status).toBe(403);
          expect((await get('/api/health/servers', viewer)).status).toBe(200);
        });

        it('checks one server by name, 404 for a name not configured, 422 for a bad body', async () => {
          const r = expectStatus(
            await post('/api/health/check', { server_name: 'alpha' }),
            200,
            'check',
          ).json;
          expect(r).toEqual([
            expect.objectContaining({
              server_name: 'alpha',
              status: 'up',
              tools_count: 2,
              schema_drift: false,
              project_id: 'default',
            }),
          ]);
          expect((await post('/api/health/check', { server_name: 'nope' })).status).toBe(404);
          expect((await post('/api/health/check', { server_name: 7 })).json.detail[0].loc).toEqual([
            'body',
            'server_name',
          ]);
        });

        it('scopes to the caller project: catalog servers with a url belong to theirs', async () => {
          const mine = expectStatus(
            await post('/api/health/check', {}, p2Admin),
            200,
            'p2 check',
          ).json;
          expect(mine).toEqual([
            expect.objectContaining({
              server_name: 'catalogued',
              project_id: 'p2',
              status: 'up',
              transport: 'sse',
            }),
          ]);
          expect(
            (await get('/api/health/servers', p2Admin)).json.map((r: any) => r.server_name),
          ).toEqual(['catalogued']);
          expect((await get('/api/health/servers/alpha', p2Admin)).status).toBe(404);
          expect((await post('/api/health/check', { project_id: 'default' }, p2Admin)).status).toBe(
            403,
          );
          const all = (await get('/api/health/servers')).json.map(
            (r: any) => `${r.project_id}/${r.server_name}`,
          );
          expect(all).toEqual([
            'default/alpha',
            'default/never',
            'default/stale-one',
            'p2/catalogued',
          ]);
        });
      });

      describe('blast radius (spec §2.7) from ingested spans', () => {
        beforeAll(async () => {
          await ingest([
            ...traffic('br-6-agents', 6, 1),
            ...traffic('br-5-agents', 5, 1),
            ...traffic('br-101-sessions', 1, 101),
            ...traffic('br-100-sessions', 1, 100),
            ...traffic('br-21-sessions', 1, 21),
            ...traffic('br-20-sessions', 1, 20),
            // Two agents sharing 11 sessions: the total is the sum over agents (22), so HIGH.
            ...traffic('br-shared', 1, 11),
            ...traffic('br-shared', 1, 11).map((s) => ({ ...s, agent_name: 'agent-b' })),
          ]);
          const at = (minutesAgo: number) =>
            new Date(Date.now() - minutesAgo * 60_000).toISOString();
          await ingest([
            nativeSpan({
              server_name: 'br-detail',
              agent_name: 'planner',
              session_id: 'd1',
              latency_ms: 10,
              started_at: at(30),
              ended_at: at(30),
            }),
            nativeSpan({
              server_name: 'br-detail',
              agent_name: 'planner',
              session_id: 'd1',
              latency_ms: 20,
              status: 'error',
              error: 'boom',
              started_at: at(20),
              ended_at: at(20),
            }),
            nativeSpan({
              server_name: 'br-detail',
              agent_name: 'planner',
              session_id: 'd2',
              latency_ms: 30,
              started_at: at(10),
              ended_at: at(10),
            }),
            nativeSpan({
              server_name: 'br-detail',
              agent_name: 'coder',
              session_id: 'd3',
              latency_ms: 5,
              status: 'timeout',
              started_at: at(5),
              ended_at: at(5),
            }),
            nativeSpan({
              server_name: 'br-detail',
              agent_name: 'old',
              session_id: 'd4',
              started_at: at(30 * 60),
              ended_at: at(30 * 60),
            }),
            nativeSpan({
              server_name: 'br-detail',
              agent_name: 'planner',
              span_type: 'agent',
              session_id: 'd5',
              started_at: at(1),
              ended_at: at(1),
            }),
            nativeSpan({
              server_name: 'br-detail',
              agent_name: 'other-project',
              project_id: 'p2',
              session_id: 'd6',
              started_at: at(1),
              ended_at: at(1),
            }),
          ]);
        });

        it.each([
          ['br-6-agents', 'CRITICAL', 6, 6],
          ['br-5-agents', 'HIGH', 5, 5],
          ['br-101-sessions', 'CRITICAL', 1, 101],
          ['br-100-sessions', 'HIGH', 1, 100],
          ['br-21-sessions', 'HIGH', 1, 21],
          ['br-20-sessions', 'MEDIUM', 1, 20],
          ['br-shared', 'HIGH', 2, 22],
          ['br-nothing', 'LOW', 0, 0],
        ])('%s: %s', async (name, severity, agents, sessions) => {
          const r = expectStatus(
            await get(`/api/health/servers/${name}/blast-radius?project_id=default`),
            200,
            'blast',
          ).json;
          expect(r).toMatchObject({
            server_name: name,
            severity,
            total_agents: agents,
            total_sessions: sessions,
            window_hours: 24,
            server_status: 'down',
          });
        });

        it('per agent: calls, sessions, errors, error rate, mean latency, last call, newest window only', async () => {
          const r = expectStatus(
            await get('/api/health/servers/br-detail/blast-radius?project_id=default'),
            200,
            'blast',
          ).json;
          expect(r).toMatchObject({
            severity: 'MEDIUM',
            total_agents: 2,
            total_sessions: 3,
            total_calls: 4,
          });
          expect(r.affected_agents).toEqual([
            {
              agent_name: 'planner',
              call_count: 3,
              session_count: 2,
              error_count: 1,
              error_rate: 33.33,
              avg_latency_ms: 20,
              last_called_at: expect.any(String),
            },
            {
              agent_name: 'coder',
              call_count: 1,
              session_count: 1,
              error_count: 0,
              error_rate: 0,
              avg_latency_ms: 5,
              last_called_at: expect.any(String),
            },
          ]);
          expect(Date.parse(r.affected_agents[0].last_called_at)).toBeGreaterThan(
            Date.now() - 11 * 60_000,
          );
          const wide = (
            await get('/api/health/servers/br-detail/blast-radius?project_id=default&hours=48')
          ).json;
          expect(wide.total_agents).toBe(3);
          expect(wide.window_hours).toBe(48);
          // A key bound to p2 sees p2's traffic only.
          expect(
            (await get('/api/health/servers/br-detail/blast-radius', p2Admin)).json,
          ).toMatchObject({
            total_agents: 1,
            affected_agents: [expect.objectContaining({ agent_name: 'other-project' })],
          });
        });

        it('reports the server status from its latest check', async () => {
          expect((await get('/api/health/servers/alpha/blast-radius')).json.server_status).toBe(
            'up',
          );
        });

        it('server_status is only up, degraded or down: stale and never-checked servers read as down', async () => {
          // A result 10 minutes old (monitor interval 60 s): the list calls it stale, the blast radius down.
          await saveCheck(server.services.store.db, {
            result: result('br-stale', new Date(Date.now() - 600_000)),
            instructions: null,
            tools: null,
            drift: null,
          });
          expect((await get('/api/health/servers/br-stale?project_id=default')).json.status).toBe(
            'stale',
          );
          expect(
            (await get('/api/health/servers/br-stale/blast-radius?project_id=default')).json
              .server_status,
          ).toBe('down');
          expect(
            (await get('/api/health/servers/never/blast-radius?project_id=default')).json
              .server_status,
          ).toBe('down');
          const q = await gql(
            '{ blastRadius(name: "br-stale", projectId: "default") { serverStatus } }',
          );
          expect(q.data.blastRadius.serverStatus).toBe('down');
        });
      });

      describe('drift impact (spec §2.4)', () => {
        it('lists the consumers of one tool in the window', async () => {
          const s = (agent: string, session: string, tool = 'search') =>
            nativeSpan({
              server_name: 'di',
              tool_name: tool,
              agent_name: agent,
              session_id: session,
            });
          await ingest([
            s('planner', 'i1'),
            s('planner', 'i2'),
            s('planner', 'i2'),
            s('coder', 'i2'),
            s('coder', 'i3', 'other_tool'),
          ]);
          const r = expectStatus(
            await get('/api/health/servers/di/drift-impact?tool_name=search&project_id=default'),
            200,
            'impact',
          ).json;
          expect(r).toEqual({
            server_name: 'di',
            tool_name: 'search',
            window_hours: 24,
            total_sessions: 2,
            consumers: [
              { agent_name: 'planner', session_count: 2, last_called_at: expect.any(String) },
              { agent_name: 'coder', session_count: 1, last_called_at: expect.any(String) },
            ],
          });
        });
      });

      describe('GraphQL', () => {
        it('exposes the same reads and the check mutation (admin only)', async () => {
          const m = await gql(
            'mutation { runHealthChecks(serverName: "alpha") { serverName status toolsCount schemaHash } }',
          );
          expect(m.data.runHealthChecks).toEqual([
            expect.objectContaining({ serverName: 'alpha', status: 'up', toolsCount: 2 }),
          ]);
          const denied = await gql('mutation { runHealthChecks { serverName } }', viewer);
          expect(denied.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', status: 403 });
          const q = await gql(
            `{
          healthServers(projectId: "default") { serverName status checkedAt }
          healthServer(name: "alpha") { status latencyMs protocolVersion }
          missing: healthServer(name: "never") { status }
          healthHistory(name: "alpha", limit: 1) { status }
          driftHistory(name: "alpha") { id }
          blastRadius(name: "br-detail", projectId: "default") { severity totalAgents affectedAgents { agentName callCount errorRate } }
          driftImpact(name: "di", toolName: "search", projectId: "default") { totalSessions consumers { agentName sessionCount } }
        }`,
            viewer,
          );
          expect(q.errors).toBeUndefined();
          expect(q.data.healthServers.map((r: any) => r.serverName)).toEqual([
            'alpha',
            'never',
            'stale-one',
          ]);
          expect(q.data.healthServer).toMatchObject({
            status: 'up',
            protocolVersion: '2025-11-25',
          });
          expect(q.data.missing).toBeNull();
          expect(q.data.healthHistory).toHaveLength(1);
          expect(q.data.blastRadius).toMatchObject({
            severity: 'MEDIUM',
            totalAgents: 2,
            affectedAgents: [
              { agentName: 'planner', callCount: 3, errorRate: 33.33 },
              expect.anything(),
            ],
          });
          expect(q.data.driftImpact).toMatchObject({ totalSessions: 2 });
          const bad = await gql('{ healthHistory(name: "alpha", limit: 0) { status } }');
          expect(bad.errors[0].extensions).toMatchObject({ code: 'VALIDATION', status: 422 });
        });
      });

      describe('retention (90 days)', () => {
        it('removes results older than retention.health_days and keeps newer ones', async () => {
          const db = server.services.store.db;
          await saveCheck(db, {
            result: result('retained', new Date(Date.now() - 91 * 86_400_000)),
            instructions: null,
            tools: [{ name: 'x' }],
            drift: null,
          });
          await saveCheck(db, {
            result: result('retained', new Date(Date.now() - 89 * 86_400_000)),
            instructions: null,
            tools: null,
            drift: null,
          });
          const removed = await server.services.health.applyRetention();
          expect(removed.results).toBe(1);
          const left = (await get('/api/health/servers/retained/history?project_id=default')).json;
          expect(left).toHaveLength(1);
          expect(Date.parse(left[0].checked_at)).toBeGreaterThan(Date.now() - 90 * 86_400_000);
        });

        it('runs when the service starts', async () => {
          const dataDir = tempDir();
          // The same data directory for both starts.
          const sameStore = {
            ...(await env()),
            SPYGLASS_DATA_DIR: dataDir,
            SPYGLASS_RATE_LIMITS: 'off',
          };
          try {
            const first = await startTestServer(sameStore);
            await saveCheck(first.services.store.db, {
              result: result('old', new Date(Date.now() - 100 * 86_400_000)),
              instructions: null,
              tools: null,
              drift: null,
            });
            expect(
              (await first.services.health.history(LOCAL_ADMIN, 'old', { limit: 10 })).items,
            ).toHaveLength(1);
            await first.stop();
            const second = await startTestServer(sameStore);
            try {
              await expect
                .poll(
                  async () =>
                    (await second.services.health.history(LOCAL_ADMIN, 'old', { limit: 10 })).items
                      .length,
                  {
                    timeout: 10_000,
                  },
                )
                .toBe(0);
            } finally {
              await second.stop();
            }
          } finally {
            rmSync(dataDir, { recursive: true, force: true });
          }
        });
      });
    },
  );
});
