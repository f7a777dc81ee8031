import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPage, startUi, type UiPage, type UiServer } from '../helpers/ui.ts';
import { seedLatencySpike } from '../helpers/ui-seed-anomalies.ts';

/**
 * The anomalies page (docs/ui.md#anomalies) in Chromium against a real server: baselines and
 * spikes through native ingest, the detector run once (its background job is off) as
 * test/anomalies/detector.test.ts does.
 */
describe('anomalies page (browser)', () => {
  let ui: UiServer;
  beforeAll(async () => {
    ui = await startUi({ SPYGLASS_ANOMALIES_INTERVAL_SECONDS: '0' });
    // Baseline 100 ± 16.33 ms: 300 ms is z 12.25 (critical), 140 ms z 2.45 (warning).
    await seedLatencySpike(ui.base, 'anom-srv', 'search', 300);
    await seedLatencySpike(ui.base, 'other-srv', 'fetch', 140);
    const found = await ui.server.services.anomalies.detect('default', new Date());
    expect(found.filter((a) => a.severity !== null)).toHaveLength(2);
  });
  afterAll(async () => ui?.close());

  const rows = (p: UiPage) => p.page.locator('table.anomaly-table tbody tr');
  const cells = async (p: UiPage, i: number) =>
    (await rows(p).nth(i).locator('td').allInnerTexts()).map((t) => t.trim());

  it('lists each anomaly with its z-score and baseline, and charts the first against its baseline', async () => {
    const p = await openPage(ui, '/anomalies');
    try {
      await p.page.getByRole('heading', { level: 1, name: 'Anomalies' }).waitFor();
      await expect.poll(() => rows(p).count(), { timeout: 15_000 }).toBe(2);
      expect((await cells(p, 0)).slice(0, 7)).toEqual([
        'critical',
        'anom-srv',
        'search',
        'mean latency',
        '12.25',
        '300 ms',
        '100 ms ± 16.3 ms',
      ]);
      expect((await cells(p, 1)).slice(0, 5)).toEqual([
        'warning',
        'other-srv',
        'fetch',
        'mean latency',
        '2.45',
      ]);
      const first = rows(p).nth(0);
      expect(
        await first.getByRole('link', { name: 'anom-srv', exact: true }).getAttribute('href'),
      ).toBe('/servers/anom-srv');
      expect(
        await first.getByRole('link', { name: 'search', exact: true }).getAttribute('href'),
      ).toBe('/servers/anom-srv?tab=tools&tool=search');

      const chart = p.page.getByRole('img', {
        name: 'mean latency of search on anom-srv per hour, with its baseline',
      });
      await chart.locator('canvas').waitFor();
      // Its numbers: four baseline hours and the scored one.
      const points = p.page.locator('.series-scroll tbody tr');
      await expect.poll(() => points.count()).toBe(5);
      const scored = points.filter({ hasText: 'scored hour' });
      expect((await scored.locator('td').allInnerTexts()).map((t) => t.trim())).toEqual([
        '5',
        '300 ms',
        '12.25',
      ]);
      expect(await p.page.getByRole('heading', { level: 1 }).count()).toBe(1);
      await p.screenshot('anomalies');
      expect(await p.axe()).toEqual([]);
      // The dark theme too (contrast of the severity colours and chart legend).
      await p.page.emulateMedia({ colorScheme: 'dark' });
      expect(await p.axe()).toEqual([]);
      expect(p.consoleErrors.join(' / ')).toBe('');
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('keeps filters and the charted anomaly in the URL', async () => {
    const p = await openPage(ui, '/anomalies');
    try {
      await expect.poll(() => rows(p).count(), { timeout: 15_000 }).toBe(2);
      await rows(p).nth(1).getByRole('link', { name: /Chart/ }).click();
      await p.page.getByRole('heading', { level: 2, name: /other-srv · fetch/ }).waitFor();
      expect(new URL(p.page.url()).searchParams.get('sel')).toBe(
        'default|other-srv|fetch|latency_ms',
      );
      await p.page
        .getByRole('img', {
          name: 'mean latency of fetch on other-srv per hour, with its baseline',
        })
        .waitFor();

      await p.page.getByLabel('Severity').selectOption('critical');
      await expect.poll(() => rows(p).count()).toBe(1);
      expect(new URL(p.page.url()).searchParams.get('severity')).toBe('critical');
      expect((await cells(p, 0))[1]).toBe('anom-srv');
      // The selection is not among the filtered rows: the first one is charted.
      await p.page.getByRole('heading', { level: 2, name: /anom-srv · search/ }).waitFor();

      await p.page.goto(`${ui.base}/anomalies?server=nowhere`);
      await p.page.getByText('No tool is anomalous now with these filters').waitFor();
      expect(await p.axe()).toEqual([]);
      expect(p.consoleErrors.join(' / ')).toBe('');
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });
});
