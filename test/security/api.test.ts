import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveEvent } from '../../src/live/bus.ts';
import { loadPin } from '../../src/security/pins.ts';
import { readPinRows } from '../../src/store/security-pins-repo.ts';
import { insertScan } from '../../src/store/security-repo.ts';
import { startHttpFixtures, type HttpFixtures } from '../fixtures/mcp/http-fixtures.ts';
import { call, createKey, createProject, expectStatus } from '../helpers/auth.ts';
import { serverBackends } from '../helpers/backends.ts';
import { SseClient } from '../helpers/sse.ts';
import { freePort } from '../helpers/free-port.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { tempDir, writeConfig } from '../health/helpers.ts';
import { configCheck, firstSeenPin, toolDescriptionCheck, useRegistry } from './helpers.ts';

/** Security scans through the real server (docs/security.md#results-history-and-pins, docs/api.md#rest): REST and GraphQL, roles, scoping, down and hanging servers, the bus event. */
const ADMIN = `sg_${'e'.repeat(63)}f`;
let dir: string;
let fx: HttpFixtures;
let server: TestServer;
let viewer: string;
let p2Admin: string;

const get = async (path: string, key = ADMIN) => call(server.httpUrl, 'GET', path, { key });
const post = async (path: string, body?: unknown, key = ADMIN) =>
  call(server.httpUrl, 'POST', path, { key, body });
const gql = async (query: string, key = ADMIN) => (await post('/graphql', { query }, key)).json;
const names = (scans: { server_name: string }[]) => scans.map((s) => s.server_name);

describe.each(serverBackends)('$name', ({ name, available, env }) => {
  describe.runIf(available)(
    available ? 'security scan API' : `security scan API (skipped: no ${name} in this run)`,
    () => {
      beforeAll(async () => {
        dir = tempDir();
        fx = await startHttpFixtures();
        const closed = await freePort();
        const config = writeConfig(dir, {
          monitor: { enabled: false },
          network: { allow_private_targets: ['127.0.0.0/8'] },
          servers: [
            { name: 'alpha', transport: 'streamable_http', url: `${fx.url}/ok/alpha/mcp` },
            { name: 'down', transport: 'streamable_http', url: `http://127.0.0.1:${closed}/mcp` },
            {
              name: 'hang',
              transport: 'streamable_http',
              url: `${fx.url}/hang/h/mcp`,
              timeout_seconds: 1,
            },
          ],
        });
        server = await startTestServer({
          ...(await env()),
          SPYGLASS_CONFIG: config,
          SPYGLASS_API_KEYS: ADMIN,
          SPYGLASS_RATE_LIMITS: 'off',
        });
        viewer = (await createKey(server.httpUrl, ADMIN, { role: 'viewer' })).key;
        await createProject(server.httpUrl, ADMIN, 'p2');
        p2Admin = (await createKey(server.httpUrl, ADMIN, { role: 'admin', project_id: 'p2' })).key;
        expectStatus(
          await call(server.httpUrl, 'PUT', '/api/servers/metadata/cat?project_id=p2', {
            key: ADMIN,
            body: { transport: 'sse', url: `${fx.url}/ok/cat/sse` },
          }),
          200,
          'catalog',
        );
        // This file tests the service around the checks (storage, API, pins, events); the real
        // checks on real servers are in everything-scan.test.ts and the check tests.
        useRegistry(server.services, { checks: [], projectChecks: [] });
      }, 60_000);

      afterAll(async () => {
        await server?.dispose();
        await fx?.close();
        rmSync(dir, { recursive: true, force: true });
      });

      it('scans every configured server: a down and a hanging server get an error, the others are unaffected', async () => {
        const r = expectStatus(await post('/api/security/scan'), 200, 'scan');
        expect(names(r.json)).toEqual(['alpha', 'down', 'hang', 'cat']);
        const [alpha, down, hang, cat] = r.json;
        expect(alpha).toMatchObject({
          project_id: 'default',
          error: null,
          findings_count: 0,
          critical_count: 0,
          high_count: 0,
          highest_severity: 'none',
          findings: [],
        });
        expect(cat).toMatchObject({ project_id: 'p2', error: null });
        expect(down.error).toMatch(/refused|connect/i);
        expect(hang.error).toMatch(/timed out|timeout/i);
        // The hanging server is bounded by its own 1 s timeout (the error names it); nothing waits on it longer.
        expect(hang.error).toMatch(/^timed out after 1000 ms/);
        expect(Date.parse(alpha.scanned_at)).toBeGreaterThan(Date.now() - 60_000);
        // The scan's health check is stored like any other.
        expect((await get('/api/health/servers/alpha')).json).toMatchObject({
          status: 'up',
          tools_count: 2,
        });
        expect((await get('/api/health/servers/down')).json.status).toBe('down');
      }, 30_000);

      it('reads back the latest scan and the history, newest first and paginated; 404 when never scanned', async () => {
        const again = expectStatus(
          await post('/api/security/scan', { server_name: 'alpha' }),
          200,
          'one server',
        ).json;
        expect(names(again)).toEqual(['alpha']);
        const latest = expectStatus(await get('/api/security/servers/alpha'), 200, 'latest').json;
        expect(latest.id).toBe(again[0].id);
        const history = expectStatus(
          await get('/api/security/servers/alpha/history'),
          200,
          'history',
        ).json;
        expect(history).toHaveLength(2);
        expect(history[0].id).toBe(again[0].id);
        expect(Date.parse(history[0].scanned_at)).toBeGreaterThanOrEqual(
          Date.parse(history[1].scanned_at),
        );
        const page = expectStatus(
          await get('/api/security/servers/alpha/history?limit=1&offset=1'),
          200,
          'page',
        ).json;
        expect(page.map((s: { id: string }) => s.id)).toEqual([history[1].id]);
        const never = await get('/api/security/servers/ghost');
        expect(never.status).toBe(404);
        expect(never.json).toEqual({ detail: 'no security scan of server ghost' });
        for (const q of ['limit=0', 'limit=101', 'offset=-1', 'offset=x']) {
          const bad = await get(`/api/security/servers/alpha/history?${q}`);
          expect(bad.status, q).toBe(422);
          expect(bad.json.detail[0].loc[0]).toBe('query');
        }
      }, 30_000);

      it('validates the body: unknown server 404, wrong types 422 naming the field', async () => {
        const unknown = await post('/api/security/scan', { server_name: 'nope' });
        expect(unknown.status).toBe(404);
        expect(unknown.json).toEqual({ detail: 'no configured server nope' });
        const wrong = await post('/api/security/scan', { server_name: 5 });
        expect(wrong.status).toBe(422);
        expect(wrong.json.detail).toEqual([
          { loc: ['body', 'server_name'], msg: 'Input should be a string', type: 'string_type' },
        ]);
        expect((await post('/api/security/scan', ['alpha'])).status).toBe(422);
      });

      it('roles: no key 401, a viewer reads but cannot scan (403)', async () => {
        expect(
          (await call(server.httpUrl, 'POST', '/api/security/scan', { body: {} })).status,
        ).toBe(401);
        expect((await call(server.httpUrl, 'GET', '/api/security/servers/alpha')).status).toBe(401);
        const denied = await post('/api/security/scan', {}, viewer);
        expect(denied.status).toBe(403);
        expect(denied.json.detail).toMatch(/read-only/);
        expect((await get('/api/security/servers/alpha', viewer)).status).toBe(200);
        const gqlDenied = await gql('mutation { runSecurityScan { serverName } }', viewer);
        expect(gqlDenied.errors[0].extensions.code).toBe('FORBIDDEN');
      });

      it('project scoping: a project key sees and scans only its own servers', async () => {
        expect((await get('/api/security/servers/alpha', p2Admin)).status).toBe(404);
        expect((await get('/api/security/servers/alpha?project_id=default', p2Admin)).status).toBe(
          403,
        );
        expect((await get('/api/security/servers/cat', p2Admin)).json).toMatchObject({
          server_name: 'cat',
          project_id: 'p2',
        });
        expect(
          names(expectStatus(await post('/api/security/scan', {}, p2Admin), 200, 'p2 scan').json),
        ).toEqual(['cat']);
        expect((await post('/api/security/scan', { server_name: 'alpha' }, p2Admin)).status).toBe(
          404,
        );
      }, 30_000);

      it('GraphQL: securityScan on each health result, the latest by name, and runSecurityScan', async () => {
        const list = await gql(
          '{ healthServers { serverName securityScan { serverName error findingsCount highestSeverity findings { rule } } } }',
        );
        expect(list.errors).toBeUndefined();
        const byName = Object.fromEntries(
          list.data.healthServers.map((h: any) => [h.serverName, h.securityScan]),
        );
        expect(byName.alpha).toMatchObject({
          serverName: 'alpha',
          error: null,
          findingsCount: 0,
          highestSeverity: 'none',
          findings: [],
        });
        expect(byName.down.error).toBeTruthy();
        const one = await gql('{ securityScan(name: "ghost") { id } }');
        expect(one.errors[0].extensions.code).toBe('NOT_FOUND');
        const run = await gql(
          'mutation { runSecurityScan(serverName: "alpha") { id serverName projectId error scannedAt } }',
        );
        expect(run.errors).toBeUndefined();
        expect(run.data.runSecurityScan).toMatchObject([
          { serverName: 'alpha', projectId: 'default', error: null },
        ]);
        const history = await gql(
          '{ securityScanHistory(name: "alpha", limit: 2) { id scannedAt } }',
        );
        expect(history.data.securityScanHistory.map((h: { id: string }) => h.id)).toEqual([
          run.data.runSecurityScan[0].id,
          expect.any(String),
        ]);
        expect(
          (await gql('{ securityScanHistory(name: "alpha", limit: 101) { id } }')).errors[0]
            .extensions.code,
        ).toBe('VALIDATION');
        const p2 = await gql('{ securityScan(name: "alpha") { id } }', p2Admin);
        expect(p2.errors[0].extensions.code).toBe('NOT_FOUND');
      }, 30_000);

      it('stores findings with rule, location, evidence and OWASP title; config checks still run on a down server; one bus event per run', async () => {
        useRegistry(server.services, {
          checks: [toolDescriptionCheck, configCheck],
          projectChecks: [],
        });
        const events: LiveEvent[] = [];
        const off = server.services.bus.subscribe(
          (e) => void (e.type === 'security:scan' && events.push(e)),
        );
        const sse = await SseClient.open(`${server.httpUrl}/api/live/events`, {
          'x-api-key': ADMIN,
        });
        try {
          const scans = expectStatus(
            await post('/api/security/scan', { project_id: 'default' }),
            200,
            'scan',
          ).json;
          const [alpha, down] = scans;
          expect(alpha).toMatchObject({
            findings_count: 3,
            high_count: 2,
            critical_count: 0,
            highest_severity: 'high',
          });
          expect(alpha.findings[0]).toEqual({
            severity: 'high',
            category: 'OWASP-MCP-03',
            owasp_title: 'Tool Poisoning',
            rule: 'test.tool-seen',
            kind: 'owasp',
            title: 'Tool seen by the scan',
            description: 'The test check reports every listed tool.',
            remediation: 'Nothing to do: this is a test rule.',
            tool_name: 'read_file',
            cve_id: null,
            location: 'tools.read_file.description',
            evidence: expect.any(String),
          });
          expect(down.error).toBeTruthy();
          expect(down.findings.map((f: { rule: string }) => f.rule)).toEqual(['test.plain-http']);
          expect((await get('/api/security/servers/alpha')).json.findings).toEqual(alpha.findings);
          // Three servers with high findings, one event for the run.
          expect(events).toEqual([
            {
              type: 'security:scan',
              data: expect.objectContaining({
                projectId: 'default',
                servers: ['alpha'],
                highCount: 2,
                criticalCount: 0,
                highestSeverity: 'high',
              }),
            },
          ]);
          // The live SSE stream keeps docs/api.md's event set: a marker published after the scan
          // arrives, and before it only the scan's health checks and the security alert it raised
          // (the internal security:scan event is not streamed).
          await sse.waitFor(() => sse.events.some((e) => e.event === 'alert:fired'), 10_000);
          server.services.bus.publish({
            type: 'health:check',
            data: { serverName: 'sse-marker', status: 'up', latencyMs: 1, projectId: 'default' },
          });
          await sse.waitFor(() => sse.events.some((e) => e.data.includes('sse-marker')), 10_000);
          expect(new Set(sse.events.map((e) => e.event))).toEqual(
            new Set(['health:check', 'alert:fired']),
          );
          expect(
            sse.events.filter((e) => e.event === 'alert:fired').map((e) => JSON.parse(e.data).type),
          ).toEqual(['security_high']);
          useRegistry(server.services, { checks: [configCheck], projectChecks: [] });
          await post('/api/security/scan', { project_id: 'default' });
          expect(events).toHaveLength(1);
        } finally {
          sse.close();
          off();
        }
      }, 30_000);

      it("a check that throws is named in the scan's error; the other checks still report", async () => {
        const boom = function exploding(): never {
          throw new Error('boom');
        };
        useRegistry(server.services, { checks: [boom, toolDescriptionCheck], projectChecks: [] });
        const [alpha] = expectStatus(
          await post('/api/security/scan', { server_name: 'alpha' }),
          200,
          'scan',
        ).json;
        expect(alpha.error).toBe('check(s) failed: exploding');
        expect(alpha.findings_count).toBe(2);
      }, 30_000);

      it('pins what a scan first sees, hands the pin to the next scan, and deletes pins with the project', async () => {
        const seen: (number | null)[] = [];
        useRegistry(server.services, {
          checks: [(ctx) => (seen.push(ctx.pin ? ctx.pin.tools.size : null), [])],
          projectChecks: [],
          pin: firstSeenPin,
        });
        await post('/api/security/scan', {});
        await post('/api/security/scan', {});
        // alpha and cat are pinned on the first run and read on the second; down and hang never are.
        expect(seen).toEqual([null, null, null, null, 2, null, null, 2]);
        expect(
          [
            ...((await loadPin(server.services.store.db, 'default', 'alpha'))?.tools.keys() ?? []),
          ].sort(),
        ).toEqual(['ping', 'read_file']);
        expect(await readPinRows(server.services.store.db, 'p2', 'cat')).toHaveLength(3);
        expectStatus(
          await call(server.httpUrl, 'DELETE', '/api/projects/p2', { key: ADMIN }),
          204,
          'delete project',
        );
        expect(await readPinRows(server.services.store.db, 'p2', 'cat')).toEqual([]);
      }, 30_000);

      it('retention removes scans older than security.history_days with their findings', async () => {
        const db = server.services.store.db;
        const old = new Date(Date.now() - 91 * 86_400_000);
        await insertScan(db, {
          id: randomUUID(),
          projectId: 'default',
          serverName: 'retired',
          scannedAt: old,
          findings: [
            {
              severity: 'low',
              category: 'OWASP-MCP-08',
              rule: 'test.old',
              kind: 'owasp',
              title: 't',
              description: 'd',
              remediation: 'r',
            },
          ],
        });
        expect((await get('/api/security/servers/retired')).status).toBe(200);
        expect(await server.services.security.applyRetention()).toBe(1);
        expect((await get('/api/security/servers/retired')).status).toBe(404);
        expect((await get('/api/security/servers/alpha')).status).toBe(200);
      });
    },
  );
});
