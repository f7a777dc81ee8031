import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../health/helpers.ts';
import { nativeSpan } from '../helpers/spans.ts';
import { openSignedIn, seedSpans, startUi, type UiServer } from '../helpers/ui.ts';
import { inbox } from '../helpers/ui-seed-alerts.ts';
import { ADMIN_KEY, seedDrift, writeServerTabsConfig } from '../helpers/ui-seed-server-tabs.ts';

/**
 * One path from a problem to its cause (docs/ui.md, issue #27 item 9): an alert → the session
 * behind it → the failed span → its server's drift, one click each, each step a URL that opens
 * the same view when shared.
 */
describe('from an alert to its cause (browser)', () => {
  let ui: UiServer;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir();
    const { config, driftFile } = writeServerTabsConfig(dir);
    ui = await startUi({
      SPYGLASS_CONFIG: config,
      SPYGLASS_API_KEYS: ADMIN_KEY,
      SPYGLASS_RATE_LIMITS: 'off',
    });
    await seedDrift(ui.base, driftFile);
    // After the drift, the agent's call with the old argument type fails: ingest raises an alert.
    await seedSpans(
      ui.base,
      [
        nativeSpan({
          span_id: 'failed-lookup',
          session_id: 'path-1',
          trace_id: 'trace-path-1',
          agent_name: 'planner',
          server_name: 'drifting',
          tool_name: 'lookup',
          status: 'error',
          error: 'invalid params: id must be an integer',
          output_result: null,
          health_tag: 'tool_failure',
        }),
      ],
      ADMIN_KEY,
    );
    await vi.waitFor(
      async () => expect(JSON.stringify(await inbox(ui.base, ADMIN_KEY))).toContain('path-1'),
      { timeout: 15_000, interval: 100 },
    );
  });
  const open = (path: string) => openSignedIn(ui, ADMIN_KEY, path);
  afterAll(async () => {
    await ui?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'alert → session → span → the server drift that explains it, each a shareable URL',
    {
      timeout: 90_000,
    },
    async () => {
      const p = await open('/alerts');
      const urls: string[] = [];
      const here = () => {
        const u = new URL(p.page.url());
        return u.pathname + u.search;
      };
      try {
        await p.page
          .getByRole('link', { name: 'Session path-1', exact: true })
          .first()
          .click({ timeout: 15_000 });
        await p.page.getByRole('heading', { level: 1, name: 'Session' }).waitFor();
        urls.push(here());
        expect(urls[0]).toMatch(/^\/sessions\/path-1/);

        await p.page
          .getByRole('treeitem')
          .filter({ hasText: 'lookup' })
          .first()
          .click({ timeout: 15_000 });
        await expect
          .poll(() => new URL(p.page.url()).searchParams.get('span'))
          .toBe('failed-lookup');
        urls.push(here());
        const panel = p.page.getByRole('complementary', { name: 'Selected span' });
        await panel.getByText('invalid params: id must be an integer').waitFor();

        await panel.getByRole('link', { name: 'Its drift' }).click();
        await p.page.locator('article.drift-event').waitFor({ timeout: 15_000 });
        urls.push(here());
        expect(urls[2]).toMatch(/^\/servers\/drifting\?.*tab=drift/);
        expect(await p.page.locator('h1').count()).toBe(1);
        expect(p.consoleErrors.join(' / ')).toBe('');
        expect(p.foreignRequests).toEqual([]);
      } finally {
        await p.close();
      }

      // Shared: each URL opened afresh (signed in) shows the same step.
      const again = await open(urls[1] ?? '/');
      try {
        await again.page
          .getByRole('complementary', { name: 'Selected span' })
          .getByText('invalid params: id must be an integer')
          .waitFor({ timeout: 15_000 });
      } finally {
        await again.close();
      }
      const drift = await open(urls[2] ?? '/');
      try {
        await drift.page.locator('article.drift-event').waitFor({ timeout: 15_000 });
      } finally {
        await drift.close();
      }
    },
  );
});
