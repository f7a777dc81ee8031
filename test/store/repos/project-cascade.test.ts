import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PREVENTION } from '../../../src/model/prevention-config.ts';
import {
  findAlert,
  findAlertConfig,
  insertAlert,
  saveAlertConfig,
} from '../../../src/store/alerts-repo.ts';
import { listAnomalies, saveStates } from '../../../src/store/anomalies-repo.ts';
import { insertAuditRows, listAudit } from '../../../src/store/audit-repo.ts';
import { listCatalog, registerNames } from '../../../src/store/catalog-repo.ts';
import { listAllPricing, upsertPricing } from '../../../src/store/costs-repo.ts';
import { listDriftEvents, listResults, saveCheck } from '../../../src/store/health-repo.ts';
import { findKey, insertKey } from '../../../src/store/keys-repo.ts';
import { sumLineage } from '../../../src/store/lineage-repo.ts';
import { findObservedBaseline, saveObservation } from '../../../src/store/observed-repo.ts';
import { listPreventionRows, upsertPreventionRow } from '../../../src/store/prevention-repo.ts';
import { deleteProjectCascade, insertProject } from '../../../src/store/projects-repo.ts';
import { readPinRows, addPinRows } from '../../../src/store/security-pins-repo.ts';
import { insertScan, latestScan } from '../../../src/store/security-repo.ts';
import { findSessionRow } from '../../../src/store/sessions-repo.ts';
import { insertSloRow, listSloRows } from '../../../src/store/slos-repo.ts';
import { insertSpans, listSpans } from '../../../src/store/spans-repo.ts';
import { storeErrorText } from '../../../src/store/store-error.ts';
import { backends } from '../../helpers/backends.ts';
import { hourAgo, project, useRepoStore } from '../../helpers/repo-store.ts';
import { span } from '../../helpers/spans.ts';
import type { Db } from '../../../src/store/db.ts';

const HASH = 'e'.repeat(64);

/** One row of everything a project can hold, written through each repository. */
async function fill(db: Db, p: string, at: Date): Promise<void> {
  await insertProject(db, { id: p, name: p, settings: {} });
  await insertSpans(db, [span(p, at, { sessionId: 's' })]);
  await registerNames(db, 'agent', p, ['planner']);
  await registerNames(db, 'server', p, ['filesystem']);
  const resultId = randomUUID();
  await saveCheck(db, {
    result: {
      id: resultId,
      projectId: p,
      serverName: 'filesystem',
      status: 'up',
      latencyMs: 1,
      toolsCount: 0,
      schemaHash: HASH,
      error: null,
      checkedAt: at,
      schemaDrift: true,
      transport: 'stdio',
      serverInfo: null,
      protocolVersion: null,
    },
    instructions: null,
    tools: [],
    drift: {
      id: randomUUID(),
      projectId: p,
      serverName: 'filesystem',
      detectedAt: at,
      previousHash: HASH,
      currentHash: HASH,
      classification: 'COMPATIBLE',
      changes: [],
    },
  });
  await saveObservation(
    db,
    {
      id: randomUUID(),
      projectId: p,
      serverName: 'filesystem',
      agentName: null,
      schemaHash: HASH,
      toolsCount: 0,
      observedAt: at,
    },
    [],
    null,
  );
  await insertAuditRows(db, [
    {
      eventId: randomUUID(),
      timestamp: at,
      actor: 'a',
      action: 'x',
      resource: 'r',
      result: 'success',
      projectId: p,
    },
  ]);
  await insertKey(db, {
    id: `key-${p}`,
    name: 'k',
    prefix: 'sg_',
    keyHash: randomUUID(),
    role: 'viewer',
    projectId: p,
  });
  await insertScan(db, {
    id: randomUUID(),
    projectId: p,
    serverName: 'filesystem',
    scannedAt: at,
    findings: [],
  });
  await addPinRows(db, p, 'filesystem', [
    { toolName: '', hash: 'h', definition: {}, pinnedAt: at },
  ]);
  await saveStates(
    db,
    p,
    [
      {
        projectId: p,
        serverName: 'filesystem',
        toolName: 'read_file',
        metric: 'error_rate',
        zScore: 3,
        currentValue: 1,
        baselineValue: 0,
        baselineStddev: 0.1,
        sampleCount: 3,
        sampleHour: at,
        severity: 'critical',
        detectedAt: at,
        since: at,
        alerted: null,
      },
    ],
    [],
  );
  await upsertPricing(db, {
    projectId: p,
    modelId: 'm',
    provider: 'x',
    inputPer1mUsd: 1,
    outputPer1mUsd: 1,
    cacheReadPer1mUsd: null,
    cacheWritePer1mUsd: null,
    effectiveFrom: at,
  });
  await insertSloRow(
    db,
    {
      sloId: randomUUID(),
      projectId: p,
      agentName: 'planner',
      metric: 'success_rate',
      threshold: 90,
      windowHours: 24,
      createdAt: at,
      updatedAt: at,
    },
    10,
  );
  await insertAlert(
    db,
    {
      id: `alert-${p}`,
      projectId: p,
      type: 'agent_failure',
      severity: 'warning',
      title: 't',
      message: 'm',
      dedupKey: 'k',
      status: 'firing',
      firedAt: at,
      fields: {},
      delivery: 'pending',
    },
    true,
  );
  await saveAlertConfig(db, { projectId: p, alertTypes: {}, chatWebhook: null, updatedAt: at });
  await upsertPreventionRow(db, {
    id: randomUUID(),
    projectId: p,
    agentName: '*',
    at,
    config: DEFAULT_PREVENTION,
  });
}

/** What each repository reads of a project, as counts (0 everywhere = nothing left). */
async function held(db: Db, p: string, since: Date): Promise<Record<string, number>> {
  const n = (x: unknown) => (Array.isArray(x) ? x.length : x ? 1 : 0);
  return {
    spans: n(await listSpans(db, { projectId: p, limit: 10 })),
    session: n(await findSessionRow(db, p, 's')),
    lineage: n(await sumLineage(db, p, since, new Date(Date.now() + 3_600_000))),
    agents: n(await listCatalog(db, 'agent', p)),
    servers: n(await listCatalog(db, 'server', p)),
    results: n(await listResults(db, p, 'filesystem', 10)),
    drift: n(await listDriftEvents(db, p, 'filesystem', 10)),
    observed: n(await findObservedBaseline(db, p, 'filesystem')),
    audit: n(await listAudit(db, { projectId: p, limit: 10, offset: 0 })),
    key: n(await findKey(db, `key-${p}`)),
    scan: n(await latestScan(db, p, 'filesystem')),
    pins: n(await readPinRows(db, p, 'filesystem')),
    anomalies: n(await listAnomalies(db, p, {})),
    pricing: n(await listAllPricing(db, p)),
    slos: n(await listSloRows(db, p)),
    alert: n(await findAlert(db, p, `alert-${p}`)),
    alertConfig: n(await findAlertConfig(db, p)),
    prevention: n(await listPreventionRows(db, p)),
  };
}

/** Deleting a project removes what every repository holds of it, and nothing of another project. */
describe.each(backends)('$name', ({ name, available }) => {
  describe.runIf(available)(available ? 'project delete cascade' : `skipped: no ${name}`, () => {
    const db = useRepoStore(name);

    it('removes every row of the project through every repository, and keeps the others', async () => {
      const at = hourAgo(1);
      const p = project('doomed');
      const q = project('bystander');
      await fill(db(), p, at);
      await fill(db(), q, at);
      const full = await held(db(), p, at);
      expect(Object.entries(full).filter(([, v]) => v === 0)).toEqual([]);
      expect(await deleteProjectCascade(db(), p)).toBe(true);
      expect(Object.values(await held(db(), p, at)).every((v) => v === 0)).toBe(true);
      expect(await held(db(), q, at)).toEqual(full);
      // The same id made again starts empty, and its forever alert keys are free again.
      await insertProject(db(), { id: p, name: 'again', settings: {} });
      expect(Object.values(await held(db(), p, at)).every((v) => v === 0)).toBe(true);
      expect(
        await insertAlert(
          db(),
          {
            id: randomUUID(),
            projectId: p,
            type: 'agent_failure',
            severity: 'warning',
            title: 't',
            message: 'm',
            dedupKey: 'k',
            status: 'firing',
            firedAt: at,
            fields: {},
            delivery: 'pending',
          },
          true,
        ),
      ).not.toBeNull();
    });

    it('a write the database refuses reports its SQLSTATE only, never the SQL or its parameters', async () => {
      const hash = `secret-${randomUUID()}`;
      await insertKey(db(), {
        id: randomUUID(),
        name: 'k',
        prefix: 'sg_',
        keyHash: hash,
        role: 'viewer',
      });
      const err = await insertKey(db(), {
        id: randomUUID(),
        name: 'k',
        prefix: 'sg_',
        keyHash: hash,
        role: 'viewer',
      }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(storeErrorText(err)).toBe('database error (SQLSTATE 23505)');
    });
  });
});
