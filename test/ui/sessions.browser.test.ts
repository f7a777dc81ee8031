import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeSpan } from '../helpers/spans.ts';
import { openPage, seedSpans, startUi, type UiServer } from '../helpers/ui.ts';

const SESSIONS = 130;

/** The session list in Chromium against a real server seeded through native ingest (docs/ui.md#pages). */
describe('sessions page (browser)', () => {
  let ui: UiServer;
  beforeAll(async () => {
    ui = await startUi();
    const now = Date.now();
    // Session i makes (i % 5) + 1 calls; every third belongs to agent beta.
    const spans = Array.from({ length: SESSIONS }, (_, i) =>
      Array.from({ length: (i % 5) + 1 }, (_, k) =>
        nativeSpan({
          session_id: `list-${String(i).padStart(3, '0')}`,
          trace_id: `list-trace-${i}`,
          agent_name: i % 3 === 0 ? 'beta' : 'alpha',
          status: k === 1 && i % 4 === 0 ? 'error' : 'success',
          error: k === 1 && i % 4 === 0 ? 'boom' : null,
          started_at: new Date(now - i * 60_000 + k * 1000).toISOString(),
          ended_at: new Date(now - i * 60_000 + k * 1000 + 50).toISOString(),
        }),
      ),
    ).flat();
    for (let i = 0; i < spans.length; i += 200) await seedSpans(ui.base, spans.slice(i, i + 200));
  });
  afterAll(async () => ui?.close());

  const rows = (p: Awaited<ReturnType<typeof openPage>>) =>
    p.page.locator('table.sessions-table tbody tr:not(.spacer)');

  it('renders with data, N of M, no console error, no other origin, no serious axe violation', async () => {
    const p = await openPage(ui, '/sessions');
    try {
      await p.page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
      await expect
        .poll(() => p.page.locator('main').getByRole('status').innerText(), { timeout: 15_000 })
        .toBe(`50 of ${SESSIONS} sessions`);
      expect(await rows(p).count()).toBeGreaterThan(5);
      expect(await rows(p).count()).toBeLessThan(50);
      expect(await rows(p).first().getByRole('link').getAttribute('href')).toBe(
        '/sessions/list-000',
      );
      await p.screenshot('sessions');
      expect(await p.axe()).toEqual([]);
      // Scrolling to the end loads the next pages.
      const scroller = p.page.locator('.table-scroll');
      await expect
        .poll(
          async () => {
            await scroller.evaluate((el) => el.scrollTo(0, el.scrollHeight));
            return p.page.locator('main').getByRole('status').innerText();
          },
          { timeout: 15_000 },
        )
        .toBe(`${SESSIONS} of ${SESSIONS} sessions`);
      await expect
        .poll(async () => {
          await scroller.evaluate((el) => el.scrollTo(0, el.scrollHeight));
          return rows(p).last().locator('td:nth-child(2)').innerText();
        })
        .toBe('list-129');
      expect(p.consoleErrors.join(' / ')).toBe('');
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('filters by agent into the URL and narrows the list', async () => {
    const p = await openPage(ui, '/sessions');
    try {
      await expect
        .poll(() => p.page.locator('main').getByRole('status').innerText())
        .toContain(`of ${SESSIONS}`);
      await p.page.getByLabel('Agent').fill('beta');
      await p.page.getByRole('button', { name: 'Apply' }).click();
      const beta = Math.ceil(SESSIONS / 3);
      await expect
        .poll(() => p.page.locator('main').getByRole('status').innerText(), { timeout: 15_000 })
        .toBe(`${beta} of ${beta} sessions`);
      expect(new URL(p.page.url()).searchParams.get('agent')).toBe('beta');
      const agents = await rows(p).locator('td:nth-child(3)').allInnerTexts();
      expect(new Set(agents)).toEqual(new Set(['beta']));
      expect(p.consoleErrors.join(' / ')).toBe('');
    } finally {
      await p.close();
    }
  });

  it('sorts by a column server-side, both ways, and selects two sessions to compare', async () => {
    const p = await openPage(ui, '/sessions');
    try {
      await expect
        .poll(() => p.page.locator('main').getByRole('status').innerText())
        .toContain(`of ${SESSIONS}`);
      const firstCalls = () => rows(p).first().locator('td:nth-child(7)').innerText();
      await p.page.getByRole('button', { name: 'Calls' }).click();
      await expect.poll(firstCalls).toBe('5');
      expect(new URL(p.page.url()).searchParams.get('sort')).toBe('calls');
      await p.page.getByRole('button', { name: 'Calls' }).click();
      await expect.poll(firstCalls).toBe('1');
      expect(new URL(p.page.url()).searchParams.get('dir')).toBe('asc');
      expect(
        await p.page.getByRole('columnheader', { name: /Calls/ }).getAttribute('aria-sort'),
      ).toBe('ascending');

      const boxes = rows(p).getByRole('checkbox');
      await boxes.nth(0).check();
      await boxes.nth(1).check();
      const compare = p.page.getByRole('link', { name: 'Compare' });
      const target = new URL((await compare.getAttribute('href'))!, ui.base);
      expect(target.pathname).toBe('/compare');
      expect(target.searchParams.get('a')).toBeTruthy();
      expect(target.searchParams.get('b')).toBeTruthy();
      expect(p.consoleErrors.join(' / ')).toBe('');
    } finally {
      await p.close();
    }
  });
});
