import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServersUi, type ServersUi } from '../helpers/ui-seed-servers.ts';
import { openSignedIn, type UiPage } from '../helpers/ui.ts';

/** The servers list and the server page's health tab in Chromium (docs/ui.md#servers, #server). */
describe('servers pages (browser)', () => {
  let s: ServersUi;
  beforeAll(async () => {
    s = await startServersUi();
  }, 120_000);
  afterAll(async () => s?.close());

  async function open(key: string, path: string): Promise<UiPage> {
    return openSignedIn(s.ui, key, path);
  }
  const cell = (p: UiPage, server: string, col: number) =>
    p.page
      .locator('tbody tr', { has: p.page.getByRole('rowheader', { name: server }) })
      .locator('td')
      .nth(col);
  const firstServer = async (p: UiPage) =>
    (await p.page.locator('tbody tr th[scope="row"] a').first().innerText()).trim();

  it('lists configured and observed servers with status and grade, sorts and filters by URL', async () => {
    const p = await open(s.admin, '/servers');
    try {
      await p.page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
      await p.page.getByRole('link', { name: 'alpha' }).waitFor();
      expect(await cell(p, 'alpha', 0).innerText()).toBe('up');
      expect(await cell(p, 'beta', 0).innerText()).toBe('down');
      expect(await cell(p, 'alpha', 1).innerText()).toMatch(/^(A\+|A|B|C|D|F)$/);
      expect(Number(await cell(p, 'alpha', 4).innerText())).toBeGreaterThan(0);
      // filesystem is only seen in a span: it is listed, unchecked.
      await expect
        .poll(
          async () => {
            if ((await p.page.getByRole('link', { name: 'filesystem' }).count()) === 0)
              await p.page.reload();
            return p.page.getByRole('link', { name: 'filesystem' }).count();
          },
          { timeout: 15_000 },
        )
        .toBe(1);
      // Observed servers are graded from their spans too (CatalogEntry.scorecard).
      expect(await cell(p, 'filesystem', 1).innerText()).toMatch(/^(A\+|A|B|C|D|F)$/);
      expect(await p.page.getByRole('link', { name: 'alpha' }).getAttribute('href')).toBe(
        '/servers/alpha',
      );
      expect(await p.page.locator('h1').count()).toBe(1);
      await p.screenshot('servers');
      expect(await p.axe()).toEqual([]);

      await p.page.getByRole('button', { name: 'Status' }).click();
      await expect.poll(() => new URL(p.page.url()).searchParams.get('sort')).toBe('status');
      await expect.poll(() => firstServer(p)).toBe('beta');
      await p.page.getByRole('button', { name: 'Status' }).click();
      await expect.poll(() => new URL(p.page.url()).searchParams.get('dir')).toBe('desc');
      await expect.poll(() => firstServer(p)).toBe('alpha');
      expect(
        await p.page.getByRole('columnheader', { name: /Status/ }).getAttribute('aria-sort'),
      ).toBe('descending');

      await p.page.goto(`${s.ui.base}/servers?status=down`);
      await p.page.getByRole('link', { name: 'beta' }).waitFor();
      expect(await p.page.locator('tbody tr').count()).toBe(1);
      expect(await p.page.getByLabel('Status').inputValue()).toBe('down');
      expect(p.consoleErrors.join(' / ')).toBe('');
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('"check now" and "scan now" run on the server, show progress and the result', async () => {
    const before = (await s.gql('{ healthServer(name: "alpha") { checkedAt } }')).healthServer
      .checkedAt;
    const scans = (await s.gql('{ securityScanHistory(name: "alpha") { id } }')).securityScanHistory
      .length;
    const p = await open(s.admin, '/servers');
    try {
      const check = p.page.getByRole('button', { name: 'Check now: alpha' });
      await check.click();
      await p.page.getByText(/^Checked: up in \d+ ms/).waitFor();
      await expect
        .poll(
          async () =>
            (await s.gql('{ healthServer(name: "alpha") { checkedAt } }')).healthServer.checkedAt,
        )
        .not.toBe(before);
      const after = (await s.gql('{ healthServer(name: "alpha") { checkedAt } }')).healthServer
        .checkedAt;
      expect(Date.parse(after)).toBeGreaterThan(Date.parse(before));
      await expect
        .poll(() => cell(p, 'alpha', 2).locator('time').getAttribute('datetime'))
        .toBe(new Date(after).toISOString());

      await p.page.getByRole('button', { name: 'Scan now: alpha' }).click();
      await p.page.getByText(/^Scanned: \d+ findings, highest/).waitFor();
      expect(
        (await s.gql('{ securityScanHistory(name: "alpha") { id } }')).securityScanHistory.length,
      ).toBe(scans + 1);
      await p.page.getByRole('button', { name: 'Check all now' }).click();
      await p.page.getByText(/^Checked 2 servers: 1 down/).waitFor();
      expect(p.consoleErrors.join(' / ')).toBe('');
    } finally {
      await p.close();
    }
  });

  it('the health tab charts status and latency, lists the scorecard, and tabs answer arrows', async () => {
    const p = await open(s.admin, '/servers/alpha');
    try {
      await p.page.getByRole('heading', { level: 1, name: 'Server' }).waitFor();
      await p.page.getByRole('img', { name: 'Health check latency over time' }).waitFor();
      await p.page.getByRole('img', { name: 'Health check status over time' }).waitFor();
      await p.page.getByRole('table', { name: 'Health checks, newest first' }).waitFor();
      // Fewer checks than a page: nothing older to load.
      expect(await p.page.getByText(/^The last \d+ checks, oldest left\.$/).count()).toBe(1);
      expect(await p.page.getByRole('button', { name: /older checks/ }).count()).toBe(0);
      const dims = p.page.getByRole('table', { name: 'Dimensions' });
      await dims.waitFor();
      for (const d of [
        'availability',
        'security',
        'reliability',
        'schema stability',
        'performance',
      ])
        await dims.getByRole('rowheader', { name: d }).waitFor();
      expect(await dims.innerText()).toMatch(/30%/);
      expect(await p.page.locator('.scorecard-grade').innerText()).toMatch(/Grade (A\+|A|B|C|D|F)/);
      expect(await p.page.locator('h1').count()).toBe(1);
      await p.screenshot('server-health');
      expect(await p.axe()).toEqual([]);

      const health = p.page.getByRole('tab', { name: 'Health' });
      expect(await health.getAttribute('aria-selected')).toBe('true');
      await health.focus();
      await p.page.keyboard.press('ArrowRight');
      await expect.poll(() => new URL(p.page.url()).searchParams.get('tab')).toBe('drift');
      expect(await p.page.evaluate(() => document.activeElement?.id)).toBe('tab-drift');
      await p.page.keyboard.press('Home');
      await expect.poll(() => new URL(p.page.url()).searchParams.get('tab')).toBe(null);
      expect(p.consoleErrors.join(' / ')).toBe('');
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('an admin edits the catalog entry; the server validation error shows next to the form', async () => {
    const p = await open(s.admin, '/servers/alpha');
    try {
      await p.page.getByRole('button', { name: /(Create|Edit) catalog entry/ }).click();
      const form = p.page.getByRole('form', { name: 'Edit catalog entry' });
      await form.getByLabel('URL', { exact: true }).fill('ftp://example.invalid/mcp');
      await form.getByRole('button', { name: 'Save' }).click();
      await form.getByRole('alert').waitFor();
      expect(await form.getByText('Input should be an http(s) URL').count()).toBe(1);
      expect(await form.getByLabel('URL', { exact: true }).getAttribute('aria-invalid')).toBe(
        'true',
      );
      expect(await p.axe()).toEqual([]);

      await form.getByLabel('URL', { exact: true }).fill('');
      await form.getByLabel('Description').fill('Fixture server <b>for</b> the UI test');
      await form.getByLabel('Owner').fill('platform-team');
      await form.getByLabel('Tags (comma-separated)').fill('fixture, stdio');
      await form.getByRole('button', { name: 'Save' }).click();
      await p.page.getByText('Fixture server <b>for</b> the UI test').waitFor();
      const entry = (await s.gql('{ server(name: "alpha") { description owner tags url } }'))
        .server;
      expect(entry).toEqual({
        description: 'Fixture server <b>for</b> the UI test',
        owner: 'platform-team',
        tags: ['fixture', 'stdio'],
        url: null,
      });
      expect(p.consoleErrors.join(' / ')).toBe('');
    } finally {
      await p.close();
    }
  });

  it('a viewer sees the servers and the health tab without check, scan or edit buttons', async () => {
    const p = await open(s.viewer, '/servers');
    try {
      await p.page.getByRole('link', { name: 'alpha' }).waitFor();
      expect(await p.page.getByRole('button', { name: /Check|Scan/ }).count()).toBe(0);
      expect(await p.page.locator('[data-admin]').count()).toBe(0);
      expect(await p.page.getByRole('columnheader', { name: 'Actions' }).count()).toBe(0);
      expect(await p.axe()).toEqual([]);
      await p.page.getByRole('link', { name: 'alpha' }).click();
      await p.page.getByRole('table', { name: 'Dimensions' }).waitFor();
      await p.page.getByRole('heading', { name: 'Catalog entry' }).waitFor();
      await p.page.locator('.catalog-entry, .health-tab p.muted').first().waitFor();
      expect(await p.page.getByRole('button', { name: /catalog entry/ }).count()).toBe(0);
      expect(await p.page.locator('[data-admin]').count()).toBe(0);
      // A server only observed in spans: never checked, still graded, no error state.
      await p.page.goto(`${s.ui.base}/servers/filesystem`);
      await p.page.getByText('Never checked yet.').waitFor();
      await p.page.getByRole('table', { name: 'Dimensions' }).waitFor();
      await p.page.locator('.catalog-entry').waitFor();
      expect(await p.page.locator('.error-state').count()).toBe(0);
      expect(p.consoleErrors.join(' / ')).toBe('');
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });
});
