import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeSpan } from '../helpers/spans.ts';
import { openPage, seedSpans, startUi, type UiServer } from '../helpers/ui.ts';

/** The live page in Chromium against a real server, spans sent through native ingest (docs/ui.md#live). */
describe('live page (browser)', () => {
  let ui: UiServer;
  beforeAll(async () => {
    ui = await startUi();
    const now = Date.now();
    await seedSpans(
      ui.base,
      Array.from({ length: 6 }, (_, i) =>
        nativeSpan({
          session_id: `live-${i % 2}`,
          status: i === 3 ? 'error' : 'success',
          error: i === 3 ? 'upstream refused' : null,
          started_at: new Date(now - (10 - i) * 1000).toISOString(),
          ended_at: new Date(now - (10 - i) * 1000 + 20).toISOString(),
        }),
      ),
    );
  });
  afterAll(async () => ui?.close());

  it('shows recent spans, then a span ingested while it is open; no console error, no other origin, no serious axe violation', async () => {
    const p = await openPage(ui, '/live');
    try {
      await p.page.getByRole('heading', { level: 1, name: 'Live' }).waitFor();
      const log = p.page.getByRole('log');
      await expect.poll(() => log.locator('li').count(), { timeout: 15_000 }).toBe(6);
      await p.page.locator('main').getByRole('status').filter({ hasText: 'Live' }).waitFor();
      expect(await log.innerText()).toContain('upstream refused');

      // Through the subscription: the row, its error (SpanEvent.error), then the session's
      // root agent span (SpanEvent.parentSpanId null) marks it done.
      const fresh = nativeSpan({
        session_id: 'live-during',
        tool_name: 'arrived_during_test',
        agent_name: 'tail-agent',
        status: 'error',
        error: 'refused during the test',
        output_result: null,
      });
      await seedSpans(ui.base, [fresh]);
      await log.locator(`li[data-span-id="${String(fresh.span_id)}"]`).waitFor({ timeout: 15_000 });
      expect(await log.innerText()).toContain('arrived_during_test');
      expect(await log.innerText()).toContain('refused during the test');
      const aside = p.page.getByRole('complementary', { name: 'Sessions' });
      await aside.getByRole('link', { name: 'live-during' }).waitFor();
      expect(await aside.innerText()).toMatch(/running\s+live-during/);
      await seedSpans(ui.base, [
        nativeSpan({
          session_id: 'live-during',
          span_type: 'agent',
          agent_name: 'tail-agent',
          tool_name: 'run',
          parent_span_id: null,
        }),
      ]);
      await expect
        .poll(async () => aside.innerText(), { timeout: 15_000 })
        .toMatch(/done\s+live-during/);

      await p.screenshot('live');
      expect(await p.axe()).toEqual([]);
      expect(p.consoleErrors.join(' / ')).toBe('');
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('holds new rows while the user scrolls up, counts them, and jumps back to the tail', async () => {
    const p = await openPage(ui, '/live?agent=scroller');
    try {
      const log = p.page.getByRole('log');
      await p.page
        .locator('main')
        .getByRole('status')
        .filter({ hasText: 'Live' })
        .waitFor({ timeout: 15_000 });
      await seedSpans(
        ui.base,
        Array.from({ length: 40 }, () => nativeSpan({ agent_name: 'scroller' })),
      );
      await expect.poll(() => log.locator('li').count(), { timeout: 15_000 }).toBe(40);
      // Scrolled up until the page shows it is holding (its button, 0 new): a render that lands
      // between the scroll and its event follows the tail again, as it should before the event.
      await expect
        .poll(
          async () => {
            await log.evaluate((el) => {
              el.scrollTop = 0;
            });
            return p.page.getByRole('button', { name: '0 new: back to the latest' }).isVisible();
          },
          { timeout: 15_000 },
        )
        .toBe(true);
      await seedSpans(ui.base, [
        nativeSpan({ agent_name: 'scroller', tool_name: 'held_1' }),
        nativeSpan({ agent_name: 'scroller', tool_name: 'held_2' }),
      ]);
      const jump = p.page.getByRole('button', { name: '2 new: back to the latest' });
      await jump.waitFor({ timeout: 15_000 });
      expect(await log.locator('li').count()).toBe(40);
      await jump.click();
      await expect.poll(() => log.locator('li').count(), { timeout: 15_000 }).toBe(42);
      expect(await log.innerText()).toContain('held_2');
      expect(await jump.count()).toBe(0);
      expect(p.consoleErrors.join(' / ')).toBe('');
    } finally {
      await p.close();
    }
  });

  it('filters by status from the URL and keeps the filter there', async () => {
    const p = await openPage(ui, '/live?status=error');
    try {
      const log = p.page.getByRole('log');
      await log.locator('li').first().waitFor({ timeout: 15_000 });
      expect(await log.innerText()).toContain('upstream refused');
      // The seeded error and the first test's, never a success.
      expect(new Set(await log.locator('.status').allInnerTexts())).toEqual(new Set(['error']));
      await p.page.getByRole('combobox', { name: 'Status' }).selectOption('');
      await expect.poll(() => log.locator('li').count(), { timeout: 15_000 }).toBeGreaterThan(1);
      expect(new URL(p.page.url()).searchParams.has('status')).toBe(false);
      expect(p.consoleErrors.join(' / ')).toBe('');
    } finally {
      await p.close();
    }
  });
});
