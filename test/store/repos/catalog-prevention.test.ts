import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PREVENTION } from '../../../src/model/prevention-config.ts';
import {
  AUTO_DESCRIPTION,
  countServersWithUrl,
  deleteCatalogEntry,
  findCatalogEntry,
  findUncataloguedNames,
  listCatalog,
  registerNames,
  upsertCatalogEntry,
  withServerCatalogLock,
} from '../../../src/store/catalog-repo.ts';
import {
  findBaseline,
  findToolSnapshot,
  listDriftEvents,
  deleteHealthBefore,
} from '../../../src/store/health-repo.ts';
import { findObservedBaseline, saveObservation } from '../../../src/store/observed-repo.ts';
import {
  configOf,
  deletePreventionRow,
  findPreventionRow,
  listPreventionRows,
  PROJECT_DEFAULT,
  upsertPreventionRow,
} from '../../../src/store/prevention-repo.ts';
import { insertSpans } from '../../../src/store/spans-repo.ts';
import { backends } from '../../helpers/backends.ts';
import { HOSTILE, hourAgo, project, useRepoStore } from '../../helpers/repo-store.ts';
import { span } from '../../helpers/spans.ts';

const hash = () => randomUUID().replaceAll('-', '').padEnd(64, '0');

/** Prevention configs, the agent and server catalog, and agents' observed tool lists on each driver. */
describe.each(backends)('$name', ({ name, available }) => {
  describe.runIf(available)(
    available ? 'catalog, prevention and observed-tool repositories' : `skipped: no ${name}`,
    () => {
      const db = useRepoStore(name);
      const t0 = hourAgo(1);
      const at = (ms: number) => new Date(t0.getTime() + ms);

      it('creates and replaces a config per (project, agent), keeping its id and creation time', async () => {
        const p = project();
        const first = await upsertPreventionRow(db(), {
          id: randomUUID(),
          projectId: p,
          agentName: PROJECT_DEFAULT,
          at: at(0),
          config: { ...DEFAULT_PREVENTION, max_cost_usd: 2.5 },
        });
        const changed = { ...DEFAULT_PREVENTION, loop_action: 'terminate' as const, max_steps: 40 };
        const second = await upsertPreventionRow(db(), {
          id: randomUUID(),
          projectId: p,
          agentName: PROJECT_DEFAULT,
          at: at(1000),
          config: changed,
        });
        expect(second).toMatchObject({ id: first.id, createdAt: at(0), updatedAt: at(1000) });
        expect(configOf(second)).toEqual(changed);
        expect(configOf((await findPreventionRow(db(), p, PROJECT_DEFAULT))!)).toEqual(changed);
        expect(await findPreventionRow(db(), project(), PROJECT_DEFAULT)).toBeUndefined();
      });

      it('lists the default first, then agents in byte order; deletes one', async () => {
        const p = project();
        for (const agent of ['b', 'Z', PROJECT_DEFAULT, 'a', 'É']) {
          await upsertPreventionRow(db(), {
            id: randomUUID(),
            projectId: p,
            agentName: agent,
            at: at(0),
            config: DEFAULT_PREVENTION,
          });
        }
        await upsertPreventionRow(db(), {
          id: randomUUID(),
          projectId: project(),
          agentName: 'other',
          at: at(0),
          config: DEFAULT_PREVENTION,
        });
        expect((await listPreventionRows(db(), p)).map((r) => r.agentName)).toEqual([
          PROJECT_DEFAULT,
          'Z',
          'a',
          'b',
          'É',
        ]);
        expect((await deletePreventionRow(db(), p, 'a'))?.agentName).toBe('a');
        expect(await deletePreventionRow(db(), p, 'a')).toBeUndefined();
        expect(await deletePreventionRow(db(), project(), 'b')).toBeUndefined();
        expect(await listPreventionRows(db(), p)).toHaveLength(4);
      });

      it('registers discovered names once and never overwrites an entry a user edited', async () => {
        const p = project();
        await upsertCatalogEntry(db(), 'agent', p, 'edited', { description: 'mine', tags: ['x'] });
        expect((await registerNames(db(), 'agent', p, ['edited', 'new'])).sort()).toEqual(['new']);
        expect(await registerNames(db(), 'agent', p, ['new'])).toEqual([]);
        expect(await findCatalogEntry(db(), 'agent', p, 'edited')).toMatchObject({
          description: 'mine',
          tags: ['x'],
          source: 'user',
        });
        expect(await findCatalogEntry(db(), 'agent', p, 'new')).toMatchObject({
          description: AUTO_DESCRIPTION,
          source: 'auto',
        });
        expect(await findCatalogEntry(db(), 'agent', project(), 'new')).toBeUndefined();
        expect((await listCatalog(db(), 'agent', p)).map((r) => r.name)).toEqual(['edited', 'new']);
      });

      it('updates only the fields sent, per project, and deletes an entry', async () => {
        const p = project();
        await upsertCatalogEntry(db(), 'server', p, 'srv', {
          description: HOSTILE.replaceAll('\u0000', ''),
          owner: 'ops',
          url: 'https://a.example/mcp',
          transport: 'http',
        });
        const row = await upsertCatalogEntry(db(), 'server', p, 'srv', {
          owner: null,
          runbookUrl: 'https://rb',
        });
        expect(row).toMatchObject({
          owner: null,
          runbookUrl: 'https://rb',
          url: 'https://a.example/mcp',
        });
        // Catalog text is the operator's, not escaped like server text: a lone surrogate cannot be
        // encoded in UTF-8 and is stored as U+FFFD by both drivers; every other character as sent.
        expect((await findCatalogEntry(db(), 'server', p, 'srv'))?.description).toBe(
          HOSTILE.replaceAll('\u0000', '').replace('\uD800', '\uFFFD'),
        );
        expect(await countServersWithUrl(db(), p)).toBe(1);
        expect(await countServersWithUrl(db(), project())).toBe(0);
        expect(
          await withServerCatalogLock(db(), p, async (tx) => {
            await upsertCatalogEntry(tx, 'server', p, 'srv2', { url: 'https://b.example/mcp' });
            return countServersWithUrl(tx, p);
          }),
        ).toBe(2);
        expect(await deleteCatalogEntry(db(), 'server', project(), 'srv')).toBe(false);
        expect(await deleteCatalogEntry(db(), 'server', p, 'srv')).toBe(true);
        expect((await listCatalog(db(), 'server', p)).map((r) => r.name)).toEqual(['srv2']);
      });

      it('finds agents and tool-call servers in spans that the catalog lacks', async () => {
        const p = project();
        await insertSpans(db(), [
          span(p, at(0), { agentName: 'known', serverName: 'listed' }),
          span(p, at(0), { agentName: 'fresh', serverName: 'unlisted' }),
          span(p, at(0), { agentName: null, spanType: 'agent', serverName: 'not-a-server' }),
          span(project(), at(0), { agentName: 'elsewhere', serverName: 'elsewhere' }),
        ]);
        await registerNames(db(), 'agent', p, ['known']);
        await registerNames(db(), 'server', p, ['listed']);
        expect(await findUncataloguedNames(db(), 'agent', p)).toEqual(['fresh']);
        expect(await findUncataloguedNames(db(), 'server', p)).toEqual(['unlisted']);
      });

      it('stores an observed tool list, its snapshot and drift; the newest is the baseline', async () => {
        const p = project();
        const h1 = hash();
        const h2 = hash();
        const tools = [{ name: 'read', description: HOSTILE }];
        const obs = (h: string, ms: number) => ({
          id: randomUUID(),
          projectId: p,
          serverName: 'fs',
          agentName: 'planner',
          schemaHash: h,
          toolsCount: 1,
          observedAt: at(ms),
        });
        expect(await findObservedBaseline(db(), p, 'fs')).toBeNull();
        await saveObservation(db(), obs(h1, 0), tools, null);
        const drift = {
          id: randomUUID(),
          projectId: p,
          serverName: 'fs',
          detectedAt: at(1000),
          previousHash: h1,
          currentHash: h2,
          classification: 'WARNING' as const,
          changes: [
            {
              change_type: 'description_changed',
              classification: 'WARNING' as const,
              tool_name: 'read',
              param_name: null,
              param_type: null,
              detail: HOSTILE,
            },
          ],
          agentName: 'planner',
        };
        await saveObservation(db(), obs(h2, 1000), [{ name: 'read' }], drift);
        expect(await findObservedBaseline(db(), p, 'fs')).toBe(h2);
        expect(await findObservedBaseline(db(), project(), 'fs')).toBeNull();
        expect(await findToolSnapshot(db(), h1)).toEqual(tools);
        expect(await listDriftEvents(db(), p, 'fs', 10)).toEqual([
          { ...drift, observedBy: 'agent' },
        ]);
        // An observation is not a check: no check baseline comes of it.
        expect(await findBaseline(db(), p, 'fs')).toBeNull();
      });

      it('retention keeps the newest observation of a server however old, as its drift baseline', async () => {
        const p = project();
        const old = hash();
        const older = hash();
        const base = { projectId: p, serverName: 'fs', agentName: null, toolsCount: 0 };
        await saveObservation(
          db(),
          {
            ...base,
            id: randomUUID(),
            schemaHash: older,
            observedAt: new Date('2020-01-01T00:00:00Z'),
          },
          [],
          null,
        );
        await saveObservation(
          db(),
          {
            ...base,
            id: randomUUID(),
            schemaHash: old,
            observedAt: new Date('2020-01-02T00:00:00Z'),
          },
          [],
          null,
        );
        await deleteHealthBefore(db(), new Date('2020-02-01T00:00:00Z'));
        expect(await findObservedBaseline(db(), p, 'fs')).toBe(old);
      });
    },
  );
});
