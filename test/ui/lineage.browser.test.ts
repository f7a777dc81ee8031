import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeSpan } from '../helpers/spans.ts';
import { openPage, seedSpans, startUi, type UiServer } from '../helpers/ui.ts';

/** The lineage page in Chromium against a real server seeded through native ingest (docs/ui.md#lineage). */
describe('lineage page (browser)', () => {
  /** Agents of the large graph: BIG agents + 1 server + BIG edges is over WORKER_THRESHOLD (150). */
  const BIG = 80;
  let ui: UiServer;
  beforeAll(async () => {
    ui = await startUi();
    const now = Date.now();
    const at = (i: number) => ({
      started_at: new Date(now - (i + 1) * 10_000).toISOString(),
      ended_at: new Date(now - (i + 1) * 10_000 + 30).toISOString(),
    });
    await seedSpans(ui.base, [
      ...Array.from({ length: 8 }, (_, i) =>
        nativeSpan({
          session_id: 'lineage-1',
          agent_name: 'planner',
          server_name: 'filesystem',
          status: i === 0 ? 'error' : 'success',
          error: i === 0 ? 'denied' : null,
          output_result: i === 0 ? null : '"ok"',
          ...at(i),
        }),
      ),
      ...Array.from({ length: 3 }, (_, i) =>
        nativeSpan({
          session_id: 'lineage-1',
          agent_name: 'researcher',
          server_name: 'web-search',
          tool_name: 'search',
          ...at(i),
        }),
      ),
      nativeSpan({
        session_id: 'lineage-1',
        agent_name: 'planner',
        span_type: 'handoff',
        tool_name: '→ researcher',
        ...at(9),
      }),
    ]);
    // Four hours ago (outside ?hours=1, inside ?hours=6): a graph large enough for the worker.
    const old = now - 4 * 3600_000;
    await seedSpans(
      ui.base,
      Array.from({ length: BIG }, (_, i) =>
        nativeSpan({
          session_id: `fleet-${i}`,
          agent_name: `fleet-agent-${i}`,
          server_name: 'shared-db',
          started_at: new Date(old + i).toISOString(),
          ended_at: new Date(old + i + 5).toISOString(),
        }),
      ),
    );
  });
  afterAll(async () => ui?.close());

  it('draws agents, servers and edges as links with a table of edges; no console error, no other origin, no serious axe violation', async () => {
    const p = await openPage(ui, '/lineage?hours=1');
    try {
      await p.page.getByRole('heading', { level: 1, name: 'Lineage' }).waitFor();
      const graph = p.page.getByRole('group', { name: /Lineage graph/ });
      await graph.waitFor({ timeout: 15_000 });
      for (const name of [
        /^Agent planner: 8 calls, 1 error/,
        /^Agent researcher/,
        /^Server filesystem: 8 calls, 1 error/,
        /^Server web-search/,
      ])
        await expect.poll(() => graph.getByRole('link', { name }).count()).toBe(1);
      expect(await graph.locator('path.edge').count()).toBe(3);
      expect(await graph.locator('path.edge-errors').count()).toBe(1);
      expect(await graph.locator('path.edge-handoff').count()).toBe(1);

      const table = p.page.getByRole('table', { name: 'Edges, busiest first' });
      const first = table.locator('tbody tr').first();
      expect((await first.locator('td').allInnerTexts()).slice(0, 5)).toEqual([
        'planner',
        'calls',
        'filesystem',
        '8',
        '1',
      ]);
      expect(await table.innerText()).toContain('hands off to');

      await p.screenshot('lineage');
      expect(await p.axe()).toEqual([]);
      expect(p.consoleErrors.join(' / ')).toBe('');
      expect(p.foreignRequests).toEqual([]);

      // A node is a keyboard-reachable link: the server opens its page, keeping the project.
      const server = graph.getByRole('link', { name: /^Server filesystem/ });
      await server.focus();
      await p.page.keyboard.press('Enter');
      await expect.poll(() => new URL(p.page.url()).pathname).toBe('/servers/filesystem');
      await p.page.goBack();
      await graph.getByRole('link', { name: /^Agent planner/ }).click();
      await expect.poll(() => p.page.url()).toContain('/sessions?agent=planner');
    } finally {
      await p.close();
    }
  });

  it('lays a large graph out in the worker (a same-origin script the CSP allows)', async () => {
    const p = await openPage(ui, '/lineage?hours=6');
    try {
      const workers: string[] = [];
      p.page.on('worker', (w) => workers.push(w.url()));
      const graph = p.page.getByRole('group', { name: /Lineage graph/ });
      await graph.waitFor({ timeout: 15_000 });
      await graph.getByRole('link', { name: /^Agent fleet-agent-79:/ }).waitFor();
      await graph.getByRole('link', { name: /^Agent planner:/ }).waitFor();
      expect(await graph.locator('path.edge').count()).toBe(BIG + 3);
      expect(workers).toHaveLength(1);
      expect(new URL(workers[0] as string).origin).toBe(new URL(ui.base).origin);
      await p.screenshot('lineage-large');
      expect(p.consoleErrors.join(' / ')).toBe('');
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('keeps the time window in the URL', async () => {
    const p = await openPage(ui, '/lineage?hours=1');
    try {
      const window = p.page.getByRole('combobox', { name: 'Window' });
      await window.waitFor({ timeout: 15_000 });
      expect(await window.inputValue()).toBe('1');
      await window.selectOption('168');
      await expect.poll(() => new URL(p.page.url()).searchParams.get('hours')).toBe('168');
      await p.page.getByRole('group', { name: /Lineage graph/ }).waitFor();
      expect(p.consoleErrors.join(' / ')).toBe('');
    } finally {
      await p.close();
    }
  });
});
