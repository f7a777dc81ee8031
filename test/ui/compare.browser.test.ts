import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeSpan } from '../helpers/spans.ts';
import { openPage, seedSpans, startUi, type UiServer } from '../helpers/ui.ts';

/** The compare page in Chromium against a real server seeded through native ingest (docs/ui.md#pages). */
describe('compare page (browser)', () => {
  let ui: UiServer;
  beforeAll(async () => {
    ui = await startUi();
    const start = Date.now() - 60_000;
    const call = (session: string, i: number, tool: string, ok: boolean, latency: number) =>
      nativeSpan({
        session_id: session,
        trace_id: `trace-${session}`,
        tool_name: tool,
        status: ok ? 'success' : 'error',
        error: ok ? null : 'permission denied',
        output_result: ok ? '"ok"' : null,
        latency_ms: latency,
        started_at: new Date(start + i * 1000).toISOString(),
        ended_at: new Date(start + i * 1000 + latency).toISOString(),
      });
    await seedSpans(ui.base, [
      call('cmp-a', 0, 'read_file', true, 40),
      call('cmp-a', 1, 'search', true, 100),
      call('cmp-a', 2, 'write_file', true, 30),
      call('cmp-b', 0, 'read_file', true, 45),
      call('cmp-b', 1, 'search', true, 300),
      call('cmp-b', 2, 'write_file', false, 20),
      call('cmp-b', 3, 'write_file', true, 25),
    ]);
  });
  afterAll(async () => ui?.close());

  it('aligns the calls and marks where B failed and A succeeded; accessible, same origin', async () => {
    const p = await openPage(ui, '/compare?a=cmp-a&b=cmp-b');
    try {
      await p.page.getByRole('heading', { level: 1, name: 'Compare sessions' }).waitFor();
      const rows = p.page.locator('table.cmp-rows tbody tr');
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(4);
      // Same sequence up to write_file, where B failed; B's retry is only in B.
      const write = rows.nth(2);
      await expect.poll(() => write.getAttribute('class')).toContain('status-changed');
      expect(await write.innerText()).toMatch(/same call, status differs/);
      expect(await write.locator('td.bad').innerText()).toBe('error');
      expect(await rows.nth(3).innerText()).toContain('only in B');
      expect(await rows.nth(1).locator('.diff-bad').first().innerText()).toContain('+200 ms');
      const totals = await p.page.locator('table.cmp-totals').innerText();
      expect(totals).toMatch(/Tool calls\s+3\s+4/);
      expect(totals).toMatch(/Failures\s+0\s+1/);
      await p.screenshot('compare');
      expect(await p.axe()).toEqual([]);
      expect(p.consoleErrors.join(' / ')).toBe('');
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });
});
