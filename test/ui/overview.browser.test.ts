import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeSpan } from '../helpers/spans.ts';
import { openPage, seedSpans, startUi, type UiServer } from '../helpers/ui.ts';

/** The overview in Chromium against a real server seeded through native ingest (docs/ui.md#overview). */
describe('overview page (browser)', () => {
  let ui: UiServer;
  beforeAll(async () => {
    ui = await startUi();
    const now = Date.now();
    await seedSpans(
      ui.base,
      Array.from({ length: 20 }, (_, i) =>
        nativeSpan({
          session_id: `overview-${i % 4}`,
          status: i % 5 === 0 ? 'error' : 'success',
          error: i % 5 === 0 ? 'boom' : null,
          output_result: i % 5 === 0 ? null : '"ok"',
          started_at: new Date(now - i * 20_000).toISOString(),
          ended_at: new Date(now - i * 20_000 + 30).toISOString(),
        }),
      ),
    );
  });
  afterAll(async () => ui?.close());

  it('renders with data, no console error, no other origin, no serious axe violation', async () => {
    const p = await openPage(ui, '/');
    try {
      await p.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await p.page.locator('.tile, .error-state').first().waitFor();
      expect(
        await p.page.locator('.error-state').count(),
        await p.page.locator('main').innerText(),
      ).toBe(0);
      await expect
        .poll(async () => p.page.locator('.tile').count(), { timeout: 15_000 })
        .toBeGreaterThanOrEqual(7);
      const text = await p.page.locator('main').innerText();
      expect(text).toContain('Spans per minute');
      // The headline is the last whole minute of the sparkline, not the one still filling.
      const [label, big] = await p.page.evaluate(() => [
        document.querySelector('[aria-label^="Spans per minute"]')?.getAttribute('aria-label'),
        document.querySelector('.tile .big')?.textContent,
      ]);
      const perMinute = (label ?? '')
        .replace(/^[^:]*:/, '')
        .split(',')
        .map(Number);
      expect(big).toBe(String(perMinute.at(-2)));
      expect(text).toMatch(/Sessions \(24 h\)\s*4/);
      expect(await p.page.locator('h1').count()).toBe(1);
      expect(await p.page.locator('nav a[aria-current="page"]').innerText()).toBe('Overview');
      await p.screenshot('overview');
      expect(await p.axe()).toEqual([]);
      expect(p.consoleErrors.join(' / ')).toBe('');
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('counts spans per minute on the server and bumps the sparkline live from spanNew', async () => {
    const p = await openPage(ui, '/');
    try {
      const spark = p.page.getByRole('img', { name: /^Spans per minute, last 30 minutes/ });
      const total = async () =>
        ((await spark.getAttribute('aria-label')) ?? '')
          .replace(/^[^:]*:/, '')
          .split(',')
          .reduce((a, n) => a + Number(n), 0);
      await spark.waitFor();
      expect(await total()).toBe(20);
      // The subscription starts when the overview mounts, before its queries answer; a span it
      // missed anyway would be counted by the next poll (60 s), hence the long poll timeout.
      await seedSpans(
        ui.base,
        Array.from({ length: 5 }, () => nativeSpan({ session_id: 'overview-live' })),
      );
      await expect.poll(total, { timeout: 75_000 }).toBe(25);
      expect(p.consoleErrors.join(' / ')).toBe('');
    } finally {
      await p.close();
    }
  });

  it('keeps view state in the URL and jumps to a session from the command palette', async () => {
    const p = await openPage(ui, '/?project=default');
    try {
      await p.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await p.page.keyboard.press('/');
      const palette = p.page.getByRole('combobox', {
        name: 'Session id, page, agent, server or alert',
      });
      await palette.fill('overview-1');
      await p.page.keyboard.press('Enter');
      await p.page.getByRole('heading', { level: 1, name: 'Session' }).waitFor();
      expect(new URL(p.page.url()).pathname).toBe('/sessions/overview-1');
      expect(new URL(p.page.url()).searchParams.get('project')).toBe('default');
      // Agents and servers the project has seen are offered by name.
      await p.page.keyboard.press('Control+k');
      await palette.fill('plann');
      await p.page.getByRole('option', { name: 'Agent planner: sessions' }).click();
      await p.page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
      expect(new URL(p.page.url()).searchParams.get('agent')).toBe('planner');
      await p.page.keyboard.press('Control+k');
      await palette.fill('filesys');
      await p.page.getByRole('option', { name: 'Server filesystem' }).waitFor();
      expect(p.consoleErrors.join(' / ')).toBe('');
    } finally {
      await p.close();
    }
  });
});
