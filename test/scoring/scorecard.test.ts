import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_ADMIN } from '../../src/auth/principal.ts';
import type { CheckedStatus, Classification } from '../../src/model/health.ts';
import { saveCheck } from '../../src/store/health-repo.ts';
import { insertScan, type NewFinding } from '../../src/store/security-repo.ts';
import { call, createKey, createProject, expectStatus } from '../helpers/auth.ts';
import { serverBackends } from '../helpers/backends.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { nativeSpan } from '../helpers/spans.ts';
import { tempDir, writeConfig } from '../health/helpers.ts';

/**
 * Scorecards from stored history (docs/scorecards.md) on each back end: health results, drift
 * events and scans through the store functions the checker and scanner use, spans through the
 * ingest API; every number below is worked out by hand in the comment beside it.
 */
const ADMIN = `sg_${'c'.repeat(63)}d`;
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
// Injected clock: half past an hour, so "24 hours" and "the current hour and the 23 before" agree.
const NOW = new Date(Math.floor(Date.now() / HOUR) * HOUR - HOUR / 2);
const ago = (ms: number) => new Date(NOW.getTime() - ms);

let server: InProcessApp;
let dir: string;

async function check(
  name: string,
  at: Date,
  status: CheckedStatus = 'up',
  latencyMs: number | null = 100,
  projectId = 'default',
): Promise<void> {
  await saveCheck(server.services.store.db, {
    result: {
      id: randomUUID(),
      projectId,
      serverName: name,
      status,
      latencyMs,
      toolsCount: 1,
      schemaHash: null,
      error: status === 'down' ? 'timed out' : null,
      checkedAt: at,
      schemaDrift: false,
      transport: 'streamable_http',
      serverInfo: null,
      protocolVersion: null,
    },
    instructions: null,
    tools: null,
    drift: null,
  });
}

async function drift(name: string, at: Date, classification: Classification): Promise<void> {
  const id = randomUUID();
  await saveCheck(server.services.store.db, {
    result: {
      id,
      projectId: 'default',
      serverName: name,
      status: 'degraded',
      latencyMs: null,
      toolsCount: 1,
      schemaHash: 'b'.repeat(64),
      error: null,
      checkedAt: at,
      schemaDrift: true,
      transport: 'streamable_http',
      serverInfo: null,
      protocolVersion: null,
    },
    instructions: null,
    tools: null,
    drift: {
      id: randomUUID(),
      projectId: 'default',
      serverName: name,
      detectedAt: at,
      previousHash: 'a'.repeat(64),
      currentHash: 'b'.repeat(64),
      classification,
      changes: [],
    },
  });
}

function finding(
  severity: NewFinding['severity'],
  kind: NewFinding['kind'] = 'owasp',
  over: Partial<NewFinding> = {},
): NewFinding {
  return {
    severity,
    kind,
    category: kind === 'cve' ? 'CVE' : 'OWASP-MCP-03',
    rule: `test.${kind}`,
    title: `${severity} ${kind}`,
    description: 'd',
    remediation: 'r',
    ...over,
  };
}

async function scan(name: string, at: Date, findings: NewFinding[]): Promise<void> {
  await insertScan(server.services.store.db, {
    id: randomUUID(),
    projectId: 'default',
    serverName: name,
    scannedAt: at,
    findings,
  });
}

const card = (name: string, projectId: string | null = 'default') =>
  server.services.scoring.get(LOCAL_ADMIN, name, projectId, NOW);
const dim = async (name: string, d: string) =>
  (await card(name)).dimensions.find((x) => x.name === d);

describe.each(serverBackends)('$name', ({ name, available, env }) => {
  describe.runIf(available)(
    available ? 'scorecards' : `scorecards (skipped: no ${name} in this run)`,
    () => {
      beforeAll(async () => {
        dir = tempDir();
        const config = writeConfig(dir, {
          monitor: { enabled: false },
          servers: [
            {
              name: 'with-auth',
              transport: 'streamable_http',
              url: 'http://127.0.0.1:9/mcp',
              headers: { Authorization: 'Bearer t' },
            },
            {
              name: 'open-http',
              transport: 'streamable_http',
              url: 'http://127.0.0.1:9/mcp',
              headers: { Accept: 'application/json' },
            },
            { name: 'stdio-key', transport: 'stdio', command: 'true', env: { GITHUB_TOKEN: 'x' } },
            { name: 'stdio-open', transport: 'stdio', command: 'true', env: { DEBUG: '1' } },
          ],
        });
        server = await startInProcessApp({
          ...(await env()),
          SPYGLASS_CONFIG: config,
          SPYGLASS_API_KEYS: ADMIN,
          SPYGLASS_RATE_LIMITS: 'off',
        });
      }, 180_000);

      afterAll(async () => {
        await server?.close();
        rmSync(dir, { recursive: true, force: true });
      });

      it('availability: checks not down over checks in 7 days; older and future checks do not count', async () => {
        for (let i = 0; i < 17; i++) await check('avail', ago(6 * DAY - i * HOUR));
        for (let i = 0; i < 3; i++) await check('avail', ago(5 * DAY - i * HOUR), 'down');
        await check('avail', ago(2 * HOUR)); // the latest is up: no run of failures
        await check('avail', ago(8 * DAY), 'down');
        await check('avail', new Date(NOW.getTime() + HOUR), 'down');
        // 18 of 21 not down = 85.71; uptime below 90% caps at D
        const c = await card('avail');
        expect(c.dimensions[0]).toEqual({
          name: 'availability',
          weight: 0.3,
          rawScore: 85.71,
          weightedScore: 25.71,
          notes: '18 of 21 checks not down in 7 days',
        });
        expect(c.capApplied).toMatchObject({ reason: 'low_uptime', maxGrade: 'D' });
      });

      it('ten consecutive failures cap at F; nine do not', async () => {
        await check('flaky', ago(3 * HOUR));
        for (let i = 0; i < 9; i++) await check('flaky', ago(2 * HOUR - i * MIN), 'down');
        expect((await card('flaky')).capApplied?.reason).not.toBe('consecutive_failures');
        await check('flaky', ago(MIN), 'down');
        const c = await card('flaky');
        expect([c.grade, c.capApplied?.reason]).toEqual(['F', 'consecutive_failures']);
        expect(c.capApplied?.description).toBe('10 consecutive failed health checks (10 or more)');
      });

      it('security: 0 when never scanned, then the deductions of the latest scan', async () => {
        await check('sec', ago(HOUR));
        expect(await dim('sec', 'security')).toMatchObject({ rawScore: 0, notes: 'never scanned' });
        await scan('sec', ago(2 * DAY), [finding('critical', 'cve', { cveId: 'CVE-2025-6514' })]);
        expect((await card('sec')).capApplied?.reason).toBe('critical_cve');
        // the latest scan wins: 100 - 15 (high) - 8 (medium) - 3 - 3 (low) - 0 (info) = 71
        await scan('sec', ago(DAY), [
          finding('high'),
          finding('medium'),
          finding('low'),
          finding('low'),
          finding('info'),
        ]);
        expect(await dim('sec', 'security')).toMatchObject({ rawScore: 71, weightedScore: 17.75 });
        expect((await card('sec')).capApplied).toMatchObject({
          reason: 'critical_or_high_finding',
          maxGrade: 'B',
        });
        // a scan after NOW is not visible at NOW
        await scan('sec', new Date(NOW.getTime() + MIN), []);
        expect(await dim('sec', 'security')).toMatchObject({ rawScore: 71 });
      });

      it('security: confirmed poisoning deducts 25 and caps at F; a critical CVE deducts 25', async () => {
        await scan('poisoned', ago(HOUR), [
          finding('high', 'poisoning'),
          finding('critical', 'cve'),
        ]);
        const c = await card('poisoned');
        expect(c.dimensions[1]?.rawScore).toBe(50);
        expect([c.grade, c.capApplied?.reason]).toEqual(['F', 'critical_cve']);
      });

      it('no authentication configured: header or credential env decides for configured servers', async () => {
        for (const s of ['with-auth', 'open-http', 'stdio-key', 'stdio-open']) {
          await check(s, ago(HOUR));
          await scan(s, ago(HOUR), []);
        }
        // checked an hour ago, so "stale" to the health list, but inside every scorecard window.
        // with-auth: 100 on everything = A+; open-http: security 90 → 97.5, capped at C
        expect(await card('with-auth')).toMatchObject({
          score: 100,
          grade: 'A+',
          capApplied: null,
        });
        expect(await card('open-http')).toMatchObject({
          score: 97.5,
          grade: 'C',
          capApplied: { reason: 'no_authentication', maxGrade: 'C' },
        });
        expect(await card('stdio-key')).toMatchObject({ grade: 'A+' });
        expect(await card('stdio-open')).toMatchObject({ grade: 'C' });
        // an unconfigured server: only the scan can say it has no authentication
        await scan('seen-only', ago(HOUR), [
          finding('high', 'no_auth', { category: 'OWASP-MCP-07' }),
        ]);
        expect(await card('seen-only')).toMatchObject({
          capApplied: { reason: 'no_authentication' },
        });
        expect(await dim('seen-only', 'security')).toMatchObject({ rawScore: 90 });
      });

      it("reliability: error rate and p99/p50 of the server's tool-call spans over 7 days", async () => {
        // 40 calls: 38 at 10 ms and 2 at 65 ms; 4 errors and 1 timeout. p50 = 10, p99 = 65 (ratio 6.5).
        // base 100 × (1 − 0.125 / 0.5) = 75; penalty 20 × (6.5 − 3) / 7 = 10 → 65
        const start = ago(HOUR);
        const spans = Array.from({ length: 40 }, (_, i) =>
          nativeSpan({
            server_name: 'rel',
            session_id: `rel-${i}`,
            trace_id: `rel-${i}`,
            latency_ms: i < 38 ? 10 : 65,
            status: i < 4 ? 'error' : i === 4 ? 'timeout' : 'success',
            started_at: start.toISOString(),
            ended_at: new Date(start.getTime() + 10).toISOString(),
          }),
        );
        // other servers, span types and an 8-day-old failure do not count
        spans.push(nativeSpan({ server_name: 'other', status: 'error' }));
        spans.push(
          nativeSpan({
            server_name: 'rel',
            span_type: 'agent',
            status: 'error',
            started_at: start.toISOString(),
            ended_at: start.toISOString(),
          }),
        );
        const old = ago(8 * DAY);
        spans.push(
          nativeSpan({
            server_name: 'rel',
            status: 'error',
            started_at: old.toISOString(),
            ended_at: old.toISOString(),
          }),
        );
        // catalogued up front: auto-registration runs after the ingest answer, not before it
        expectStatus(
          await call(server.httpUrl, 'PUT', '/api/servers/metadata/rel', {
            key: ADMIN,
            body: { transport: 'stdio', owner: 'team' },
          }),
          200,
          'catalog',
        );
        expectStatus(
          await call(server.httpUrl, 'POST', '/api/traces/spans', { key: ADMIN, body: spans }),
          202,
          'ingest',
        );
        expect(await dim('rel', 'reliability')).toEqual({
          name: 'reliability',
          weight: 0.2,
          rawScore: 65,
          weightedScore: 13,
          notes: 'error rate 12.5% of 40 calls, p99/p50 6.5',
        });
      });

      it('schema stability: minus 10 / 20 / 30 per COMPATIBLE / WARNING / BREAKING drift in 7 days', async () => {
        await drift('drifty', ago(DAY), 'BREAKING');
        await drift('drifty', ago(2 * DAY), 'WARNING');
        await drift('drifty', ago(3 * DAY), 'COMPATIBLE');
        await drift('drifty', ago(8 * DAY), 'BREAKING');
        // 100 − 30 − 20 − 10 = 40
        expect(await dim('drifty', 'schema_stability')).toMatchObject({
          rawScore: 40,
          weightedScore: 6,
        });
        for (let i = 0; i < 3; i++) await drift('drifty', ago(DAY + i * MIN), 'BREAKING');
        expect(await dim('drifty', 'schema_stability')).toMatchObject({ rawScore: 0 });
      });

      it('performance: 24 h p99 of health checks against the 30-day p99', async () => {
        // 200 checks at 100 ms over days 2-29 and 2 at 250 ms in the last day. 30-day p99 is the
        // 200th of 202 = 100 ms, bucket ceil(log_1.05(100/5000)) + 200 = 120; 24 h p99 = 250 ms,
        // bucket 139. Ratio 1.05^19 = 2.52695, so 100 × (3 − 2.52695) / 1.8 = 26.28.
        for (let i = 0; i < 200; i++) await check('perf', ago(2 * DAY + i * 3 * HOUR));
        await check('perf', ago(HOUR), 'up', 250);
        await check('perf', ago(2 * HOUR), 'up', 250);
        await check('perf', ago(3 * HOUR), 'down', 9000); // down checks have no say in latency
        expect(await dim('perf', 'performance')).toMatchObject({
          rawScore: 26.28,
          weightedScore: 2.63,
        });
        // within 1.2× is 100: 110 ms is bucket 122, 1.05^2 = 1.1025
        await check('steady', ago(3 * DAY));
        await check('steady', ago(HOUR), 'up', 110);
        expect(await dim('steady', 'performance')).toMatchObject({ rawScore: 100 });
      });

      it('a p99 above 5000 ms in 24 hours caps at B', async () => {
        await scan('slow', ago(HOUR), []);
        for (let i = 0; i < 5; i++) await check('slow', ago(10 * DAY + i * HOUR), 'up', 5000);
        await check('slow', ago(HOUR), 'up', 5000);
        // exactly 5000 ms is not above it
        expect((await card('slow')).capApplied).toBeNull();
        await check('slow', ago(2 * HOUR), 'up', 5000.5);
        expect(await card('slow')).toMatchObject({
          grade: 'B',
          capApplied: { reason: 'slow_p99', maxGrade: 'B' },
        });
      });

      it('hand-computed whole scorecard', async () => {
        // availability 10 of 11 = 90.91 (27.27; the drift came with a degraded check); security
        // 100 − 8 = 92 (23); reliability no calls 100 (20); schema 1 WARNING 80 (12); performance
        // no change 100 (10) → 92.27, A
        for (let i = 0; i < 9; i++) await check('whole', ago(DAY + i * HOUR));
        await check('whole', ago(2 * DAY), 'down');
        await scan('whole', ago(HOUR), [finding('medium')]);
        await drift('whole', ago(3 * HOUR), 'WARNING');
        const c = await card('whole');
        expect(c.dimensions.map((d) => [d.name, d.rawScore, d.weightedScore])).toEqual([
          ['availability', 90.91, 27.27],
          ['security', 92, 23],
          ['reliability', 100, 20],
          ['schema_stability', 80, 12],
          ['performance', 100, 10],
        ]);
        expect([c.score, c.grade, c.capApplied]).toEqual([92.27, 'A', null]);
      });

      describe('API', () => {
        it('GET /api/health/servers/{name}/scorecard has the shape of spec §2.5; 404 for an unknown server', async () => {
          const r = expectStatus(
            await call(server.httpUrl, 'GET', '/api/health/servers/with-auth/scorecard', {
              key: ADMIN,
            }),
            200,
            'scorecard',
          );
          expect(Object.keys(r.json).sort()).toEqual([
            'cap_applied',
            'computed_at',
            'dimensions',
            'grade',
            'score',
            'server_name',
          ]);
          expect(r.json.dimensions.map((d: any) => [d.name, d.weight])).toEqual([
            ['availability', 0.3],
            ['security', 0.25],
            ['reliability', 0.2],
            ['schema_stability', 0.15],
            ['performance', 0.1],
          ]);
          expect(r.json.dimensions[0]).toEqual({
            name: 'availability',
            weight: 0.3,
            raw_score: 100,
            weighted_score: 30,
            notes: expect.any(String),
          });
          // a configured server without any data still has a scorecard
          expect(
            (
              await call(server.httpUrl, 'GET', '/api/health/servers/stdio-open/scorecard', {
                key: ADMIN,
              })
            ).status,
          ).toBe(200);
          const missing = await call(
            server.httpUrl,
            'GET',
            '/api/health/servers/nobody/scorecard',
            { key: ADMIN },
          );
          expect([missing.status, missing.json]).toEqual([404, { detail: 'no server nobody' }]);
        });

        it("is scoped to the caller's project", async () => {
          await createProject(server.httpUrl, ADMIN, 'p2');
          const p2 = (await createKey(server.httpUrl, ADMIN, { role: 'viewer', project_id: 'p2' }))
            .key;
          expect(
            (await call(server.httpUrl, 'GET', '/api/health/servers/whole/scorecard', { key: p2 }))
              .status,
          ).toBe(404);
          await check('whole', ago(HOUR), 'down', null, 'p2');
          const r = await call(server.httpUrl, 'GET', '/api/health/servers/whole/scorecard', {
            key: p2,
          });
          expect(r.json.dimensions[0]).toMatchObject({ raw_score: 0 });
          expect(
            (await call(server.httpUrl, 'GET', '/api/health/servers/whole/scorecard', { key: p2 }))
              .status,
          ).toBe(200);
          expect(
            (await call(server.httpUrl, 'GET', '/api/health/servers/whole/scorecard')).status,
          ).toBe(401);
        });

        it('GraphQL: one query gives status, grade and cap of every server', async () => {
          const q =
            '{ healthServers(projectId: "default") { serverName status scorecard { grade score capApplied { reason maxGrade } dimensions { name rawScore } } } }';
          const r = expectStatus(
            await call(server.httpUrl, 'POST', '/graphql', { key: ADMIN, body: { query: q } }),
            200,
            'graphql',
          );
          expect(r.json.errors).toBeUndefined();
          const rows = r.json.data.healthServers.map((s: any) => [
            s.serverName,
            s.status,
            s.scorecard.grade,
            s.scorecard.capApplied?.reason ?? null,
          ]);
          expect(rows).toEqual([
            ['open-http', 'stale', 'C', 'no_authentication'],
            ['stdio-key', 'stale', 'A+', null],
            ['stdio-open', 'stale', 'C', 'no_authentication'],
            ['with-auth', 'stale', 'A+', null],
          ]);
          const one = await call(server.httpUrl, 'POST', '/graphql', {
            key: ADMIN,
            body: { query: '{ scorecard(name: "nobody") { grade } }' },
          });
          expect(one.json.errors?.[0]?.message).toBe('no server nobody');
        });
      });

      it('retention removes checks from the rollups too', async () => {
        expect((await dim('with-auth', 'availability'))?.rawScore).toBe(100);
        // a cutoff 10 days after NOW removes every stored check
        await server.services.health.applyRetention(new Date(NOW.getTime() + 100 * DAY));
        expect(await dim('with-auth', 'availability')).toMatchObject({
          rawScore: 0,
          notes: 'no health checks in the last 7 days',
        });
        expect(await dim('with-auth', 'performance')).toMatchObject({
          rawScore: 100,
          notes: 'no health-check latency in the last 24 hours',
        });
        // a server known only from its checks is gone with them
        await expect(card('avail')).rejects.toThrow('no server avail');
      });
    },
  );
});
