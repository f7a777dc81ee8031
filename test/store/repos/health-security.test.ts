import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type {
  CheckedStatus,
  DriftEvent,
  HealthResult,
  ToolSnapshot,
} from '../../../src/model/health.ts';
import type { ScanFinding } from '../../../src/model/security-scan.ts';
import { upsertCatalogEntry } from '../../../src/store/catalog-repo.ts';
import {
  deleteHealthBefore,
  findBaseline,
  findToolSnapshot,
  findToolSnapshots,
  latestResults,
  listCatalogEndpoints,
  listDriftEvents,
  listResults,
  saveCheck,
  usageByAgent,
} from '../../../src/store/health-repo.ts';
import { findServerProjects, loadScoreInputs } from '../../../src/store/scoring-repo.ts';
import { addPinRows, readPinRows } from '../../../src/store/security-pins-repo.ts';
import {
  deleteScansBefore,
  insertScan,
  latestScan,
  latestScans,
  latestScanSummaries,
  scanHistory,
} from '../../../src/store/security-repo.ts';
import { sessionsOfServer } from '../../../src/store/server-sessions-repo.ts';
import { findUnconfiguredServers } from '../../../src/store/shadow-repo.ts';
import { insertSpans } from '../../../src/store/spans-repo.ts';
import { backends } from '../../helpers/backends.ts';
import { HOSTILE, hourAgo, project, useRepoStore } from '../../helpers/repo-store.ts';
import { span } from '../../helpers/spans.ts';

const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);

function result(
  projectId: string,
  checkedAt: Date,
  over: Partial<HealthResult> & { status?: CheckedStatus } = {},
): HealthResult & { status: CheckedStatus } {
  return {
    id: randomUUID(),
    projectId,
    serverName: 'filesystem',
    status: 'up' as const,
    latencyMs: 12,
    toolsCount: 1,
    schemaHash: HASH_A,
    error: null,
    checkedAt,
    schemaDrift: false,
    transport: 'stdio',
    serverInfo: { name: 'fs', version: '1.0' },
    protocolVersion: '2025-06-18',
    ...over,
  };
}

function finding(over: Partial<ScanFinding> = {}): ScanFinding {
  return {
    severity: 'high',
    category: 'OWASP-MCP-07',
    rule: 'plaintext-transport',
    kind: 'owasp',
    title: 'Plain HTTP',
    description: 'sent in clear',
    remediation: 'use TLS',
    ...over,
  };
}

/** Health checks, drift, scorecard inputs, scans, pins and shadow servers on each driver. */
describe.each(backends)('$name', ({ name, available }) => {
  describe.runIf(available)(
    available ? 'health, scoring and security repositories' : `skipped: no ${name}`,
    () => {
      const db = useRepoStore(name);
      const t0 = hourAgo(3);
      const at = (ms: number) => new Date(t0.getTime() + ms);

      it('stores a check with its tool list and drift, hostile server text read back as sent', async () => {
        const p = project();
        const tools: ToolSnapshot[] = [
          { name: `read${HOSTILE}`, description: HOSTILE, inputSchema: { [HOSTILE]: 1 } },
        ];
        const first = result(p, at(0), {
          error: HOSTILE,
          serverInfo: { name: HOSTILE },
          protocolVersion: HOSTILE,
        });
        await saveCheck(db(), { result: first, instructions: HOSTILE, tools, drift: null });
        const drift: DriftEvent = {
          id: randomUUID(),
          projectId: p,
          serverName: 'filesystem',
          detectedAt: at(1000),
          previousHash: HASH_A,
          currentHash: HASH_B,
          classification: 'BREAKING',
          changes: [
            {
              change_type: 'tool_removed',
              classification: 'BREAKING',
              tool_name: HOSTILE,
              param_name: null,
              param_type: null,
              detail: HOSTILE,
            },
          ],
        };
        const second = result(p, at(1000), { schemaHash: HASH_B, schemaDrift: true });
        await saveCheck(db(), {
          result: second,
          instructions: 'new',
          tools: [{ name: 'x' }],
          drift,
        });

        expect(await listResults(db(), p, 'filesystem', 10)).toEqual([second, first]);
        expect(await findBaseline(db(), p, 'filesystem')).toEqual({
          schemaHash: HASH_B,
          instructions: 'new',
        });
        expect(await findToolSnapshot(db(), HASH_A)).toEqual(tools);
        expect(
          (await findToolSnapshots(db(), [HASH_A, HASH_B, 'c'.repeat(64)])).sort((x, y) =>
            x.hash.localeCompare(y.hash),
          ),
        ).toEqual([
          { hash: HASH_A, tools },
          { hash: HASH_B, tools: [{ name: 'x' }] },
        ]);
        expect(await listDriftEvents(db(), p, 'filesystem', 10)).toEqual([
          { ...drift, observedBy: null, agentName: null },
        ]);
        expect(await latestResults(db(), [{ projectId: p, serverName: 'filesystem' }])).toEqual([
          second,
        ]);
      });

      it('pages results and drift events newest first and keeps projects apart', async () => {
        const p = project();
        const q = project();
        const rows = [0, 1, 2, 3, 4].map((i) => result(p, at(i * 1000)));
        for (const r of rows)
          await saveCheck(db(), { result: r, instructions: null, tools: null, drift: null });
        await saveCheck(db(), {
          result: result(q, at(9000)),
          instructions: null,
          tools: null,
          drift: null,
        });
        const seen: string[] = [];
        let after: { time: Date; id: string } | undefined;
        for (let i = 0; i < 5; i++) {
          const page = await listResults(db(), p, 'filesystem', 2, after);
          seen.push(...page.map((r) => r.id));
          const last = page.at(-1);
          if (!last?.checkedAt) break;
          after = { time: last.checkedAt, id: last.id };
        }
        expect(seen).toEqual(rows.map((r) => r.id).reverse());
        expect(await findBaseline(db(), project(), 'filesystem')).toBeNull();
        expect((await listResults(db(), q, 'filesystem', 10)).map((r) => r.projectId)).toEqual([q]);
        expect(await listDriftEvents(db(), q, 'filesystem', 10)).toEqual([]);
        const latest = await latestResults(db(), [
          { projectId: p, serverName: 'filesystem' },
          { projectId: q, serverName: 'filesystem' },
          { projectId: p, serverName: 'absent' },
        ]);
        expect(latest.map((r) => [r.projectId, r.checkedAt])).toEqual([
          [p, at(4000)],
          [q, at(9000)],
        ]);
      });

      it('retention removes old checks and drift, and tool lists nothing refers to', async () => {
        const p = project();
        const old = new Date('2020-01-01T00:00:00Z');
        const hash = randomUUID().replaceAll('-', '').padEnd(64, '0');
        await saveCheck(db(), {
          result: result(p, old, { schemaHash: hash }),
          instructions: null,
          tools: [{ name: 'gone' }],
          drift: null,
        });
        await saveCheck(db(), {
          result: result(p, at(0)),
          instructions: null,
          tools: null,
          drift: null,
        });
        const out = await deleteHealthBefore(db(), new Date('2020-02-01T00:00:00Z'));
        expect(out.results).toBeGreaterThanOrEqual(1);
        expect((await listResults(db(), p, 'filesystem', 10)).map((r) => r.checkedAt)).toEqual([
          at(0),
        ]);
        // The snapshot is kept while its last_seen_at is recent (it was written now).
        expect(await findToolSnapshot(db(), hash)).toEqual([{ name: 'gone' }]);
      });

      it('reads the agents and sessions that called a server, per project', async () => {
        const p = project();
        await insertSpans(db(), [
          span(p, at(0), { agentName: 'a1', sessionId: 's1', toolName: 't1' }),
          span(p, at(1000), {
            agentName: 'a1',
            sessionId: 's2',
            toolName: 't1',
            status: 'error',
            latencyMs: 30,
          }),
          span(p, at(2000), { agentName: 'a2', traceId: 'tr', toolName: 't2' }),
          span(p, at(3000), { agentName: 'a2', sessionId: 's3', serverName: 'other' }),
          span(project(), at(0), { agentName: 'a1', sessionId: 's1' }),
        ]);
        const usage = await usageByAgent(db(), {
          projectId: p,
          serverName: 'filesystem',
          since: t0,
        });
        expect(usage.distinctSessions).toBe(2);
        expect(
          usage.agents.sort((x, y) => String(x.agentName).localeCompare(String(y.agentName))),
        ).toEqual([
          {
            agentName: 'a1',
            callCount: 2,
            sessionCount: 2,
            errorCount: 1,
            avgLatencyMs: 20,
            lastCalledAt: at(1000),
          },
          {
            agentName: 'a2',
            callCount: 1,
            sessionCount: 0,
            errorCount: 0,
            avgLatencyMs: 10,
            lastCalledAt: at(2000),
          },
        ]);
        const t1 = await usageByAgent(db(), {
          projectId: p,
          serverName: 'filesystem',
          toolName: 't2',
          since: t0,
        });
        expect(t1.agents.map((a) => a.agentName)).toEqual(['a2']);
        expect(
          await sessionsOfServer(db(), {
            projectId: p,
            serverName: 'filesystem',
            since: t0,
            limit: 10,
          }),
        ).toEqual([
          { sessionId: 'tr', agentName: 'a2', callCount: 1, errorCount: 0, lastCalledAt: at(2000) },
          { sessionId: 's2', agentName: 'a1', callCount: 1, errorCount: 1, lastCalledAt: at(1000) },
          { sessionId: 's1', agentName: 'a1', callCount: 1, errorCount: 0, lastCalledAt: at(0) },
        ]);
        expect(
          await sessionsOfServer(db(), {
            projectId: p,
            serverName: 'filesystem',
            toolName: 't1',
            since: t0,
            limit: 1,
          }),
        ).toHaveLength(1);
      });

      it('lists catalog servers with a url as check targets of their project only', async () => {
        const p = project();
        await upsertCatalogEntry(db(), 'server', p, 'remote', {
          url: 'https://mcp.example/x',
          transport: 'http',
        });
        await upsertCatalogEntry(db(), 'server', p, 'no-url', { description: 'd' });
        expect(await listCatalogEndpoints(db(), p)).toEqual([
          { projectId: p, name: 'remote', transport: 'http', url: 'https://mcp.example/x' },
        ]);
        expect(await listCatalogEndpoints(db(), project())).toEqual([]);
      });

      it('gives the scorecard its checks, failures, drift and calls of 7 days', async () => {
        const p = project();
        const now = new Date(Date.now() + 1000);
        for (const [i, status] of (['up', 'down', 'up', 'down', 'down'] as const).entries()) {
          await saveCheck(db(), {
            result: result(p, at(i * 1000), { status }),
            instructions: null,
            tools: null,
            drift: null,
          });
        }
        await saveCheck(db(), {
          result: result(p, at(6000), { status: 'down', schemaDrift: true }),
          instructions: null,
          tools: null,
          drift: {
            id: randomUUID(),
            projectId: p,
            serverName: 'filesystem',
            detectedAt: at(6000),
            previousHash: HASH_A,
            currentHash: HASH_B,
            classification: 'WARNING',
            changes: [],
          },
        });
        await insertSpans(db(), [
          span(p, at(0), { latencyMs: 10 }),
          span(p, at(1), { latencyMs: 30, status: 'error' }),
          span(p, at(2), { status: 'prevented' }),
        ]);
        const [inputs] = await loadScoreInputs(
          db(),
          [{ projectId: p, serverName: 'filesystem' }],
          now,
        );
        expect(inputs).toMatchObject({
          projectId: p,
          serverName: 'filesystem',
          checks7d: 6,
          downChecks7d: 4,
          consecutiveFailures: 3,
          driftCompatible: 0,
          driftWarning: 1,
          driftBreaking: 0,
          calls: 2,
          failedCalls: 1,
          callP50Ms: 20,
        });
        const [none] = await loadScoreInputs(
          db(),
          [{ projectId: project(), serverName: 'filesystem' }],
          now,
        );
        expect(none).toMatchObject({ checks7d: 0, calls: 0, callP50Ms: null, p99Bucket24h: null });
        expect(await findServerProjects(db(), p, 'filesystem')).toEqual([p]);
        expect(await findServerProjects(db(), p, 'never')).toEqual([]);
      });

      it('retention removes checks from the scorecard rollups too', async () => {
        const p = project();
        const now = new Date();
        const old = new Date(now.getTime() - 3 * 86_400_000);
        await saveCheck(db(), {
          result: result(p, old),
          instructions: null,
          tools: null,
          drift: null,
        });
        const before = await loadScoreInputs(
          db(),
          [{ projectId: p, serverName: 'filesystem' }],
          now,
        );
        expect(before[0]).toMatchObject({ checks7d: 1, p99Bucket30d: expect.any(Number) });
        expect(await findServerProjects(db(), p, 'filesystem')).toEqual([p]);
        await deleteHealthBefore(db(), new Date(now.getTime() - 86_400_000));
        const after = await loadScoreInputs(
          db(),
          [{ projectId: p, serverName: 'filesystem' }],
          now,
        );
        expect(after[0]).toMatchObject({ checks7d: 0, downChecks7d: 0, p99Bucket30d: null });
        // a server known only from its checks is gone with them
        expect(await findServerProjects(db(), p, 'filesystem')).toEqual([]);
      });

      it('stores scans with their findings, hostile text as sent, and pages their history', async () => {
        const p = project();
        const findings = [
          finding({ severity: 'critical', kind: 'cve', cveId: 'CVE-1', title: HOSTILE }),
          finding({
            severity: 'medium',
            kind: 'poisoning',
            toolName: HOSTILE,
            location: HOSTILE,
            evidence: HOSTILE,
          }),
          finding({ severity: 'low', kind: 'no_auth' }),
        ];
        const first = await insertScan(db(), {
          id: randomUUID(),
          projectId: p,
          serverName: 'fs',
          scannedAt: at(0),
          error: HOSTILE,
          findings,
        });
        expect(first).toMatchObject({
          findingsCount: 3,
          criticalCount: 1,
          highCount: 0,
          highestSeverity: 'critical',
        });
        const second = await insertScan(db(), {
          id: randomUUID(),
          projectId: p,
          serverName: 'fs',
          scannedAt: at(1000),
          findings: [],
        });
        expect(second.highestSeverity).toBe('none');
        const third = await insertScan(db(), {
          id: randomUUID(),
          projectId: p,
          serverName: 'fs',
          scannedAt: at(2000),
          findings: [finding()],
        });
        expect(await scanHistory(db(), p, 'fs', 10, 0)).toEqual([third, second, first]);
        expect((await scanHistory(db(), p, 'fs', 1, 2))[0]?.findings[1]?.toolName).toBe(HOSTILE);
        expect(await latestScan(db(), p, 'fs')).toEqual(third);
        expect(await latestScan(db(), project(), 'fs')).toBeNull();
        expect(
          await latestScans(db(), [
            { projectId: p, serverName: 'fs' },
            { projectId: p, serverName: 'x' },
          ]),
        ).toEqual([third]);
        const [summary] = await latestScanSummaries(
          db(),
          [{ projectId: p, serverName: 'fs' }],
          at(500),
        );
        expect(summary).toMatchObject({
          scanId: first.id,
          scannedAt: at(0),
          critical: 1,
          medium: 0,
          low: 0,
          criticalCves: 1,
          poisoning: 1,
          noAuth: 1,
        });
      });

      it('retention removes scans older than the cutoff with their findings', async () => {
        const p = project();
        await insertScan(db(), {
          id: randomUUID(),
          projectId: p,
          serverName: 'fs',
          scannedAt: new Date('2020-01-01T00:00:00Z'),
          findings: [finding()],
        });
        const kept = await insertScan(db(), {
          id: randomUUID(),
          projectId: p,
          serverName: 'fs',
          scannedAt: at(0),
          findings: [finding()],
        });
        expect(
          await deleteScansBefore(db(), new Date('2020-02-01T00:00:00Z')),
        ).toBeGreaterThanOrEqual(1);
        expect(await scanHistory(db(), p, 'fs', 10, 0)).toEqual([kept]);
      });

      it('pins a definition once; a later scan never overwrites it; hostile names stay as sent', async () => {
        const p = project();
        const pin = {
          toolName: HOSTILE,
          hash: 'h1',
          definition: { description: HOSTILE },
          pinnedAt: at(0),
        };
        await addPinRows(db(), p, 'fs', [
          pin,
          { toolName: '', hash: 'srv', definition: { instructions: 'i' }, pinnedAt: at(0) },
        ]);
        await addPinRows(db(), p, 'fs', [{ ...pin, hash: 'rug-pull', pinnedAt: at(5000) }]);
        const rows = await readPinRows(db(), p, 'fs');
        expect(rows.sort((x, y) => x.hash.localeCompare(y.hash))).toEqual([
          pin,
          { toolName: '', hash: 'srv', definition: { instructions: 'i' }, pinnedAt: at(0) },
        ]);
        expect(await readPinRows(db(), project(), 'fs')).toEqual([]);
      });

      it('finds servers called in a window that are neither known nor catalogued by a user', async () => {
        const p = project();
        await insertSpans(db(), [
          span(p, at(0), { serverName: 'known' }),
          span(p, at(0), { serverName: 'shadow' }),
          span(p, at(1000), { serverName: 'shadow' }),
          span(p, at(0), { serverName: 'approved' }),
          span(p, at(0), { serverName: 'auto' }),
          span(p, new Date('2020-01-01T00:00:00Z'), { serverName: 'long-ago' }),
          span(project(), at(0), { serverName: 'elsewhere' }),
        ]);
        await upsertCatalogEntry(db(), 'server', p, 'approved', { description: 'ok' });
        const { registerNames } = await import('../../../src/store/catalog-repo.ts');
        await registerNames(db(), 'server', p, ['auto']);
        expect(
          await findUnconfiguredServers(db(), p, ['known'], t0, new Date(Date.now() + 1000)),
        ).toEqual([
          { serverName: 'auto', calls: 1, lastSeen: at(0) },
          { serverName: 'shadow', calls: 2, lastSeen: at(1000) },
        ]);
      });
    },
  );
});
