import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../health/helpers.ts';
import { createKey } from '../helpers/auth.ts';
import { startUi, type UiPage, type UiServer } from '../helpers/ui.ts';
import { ESCAPE_NAME, NUL_NAME } from '../fixtures/mcp/hostile-tools.ts';
import {
  ADMIN_KEY,
  check,
  openServerPage,
  gql,
  seedDrift,
  seedImpactSpans,
  writeServerTabsConfig,
} from '../helpers/ui-seed-server-tabs.ts';

/**
 * The server page's drift, tools, security and impact tabs in Chromium against a real server
 * with configured stdio fixture servers (docs/ui.md#server-tabs-drift-tools-security-impact).
 */
describe('server tabs (browser)', () => {
  let ui: UiServer;
  let dir: string;
  let viewerKey: string;
  beforeAll(async () => {
    dir = tempDir();
    const { config, driftFile } = writeServerTabsConfig(dir);
    ui = await startUi({
      SPYGLASS_CONFIG: config,
      SPYGLASS_API_KEYS: ADMIN_KEY,
      SPYGLASS_RATE_LIMITS: 'off',
    });
    viewerKey = (await createKey(ui.base, ADMIN_KEY, { role: 'viewer' })).key;
    await seedDrift(ui.base, driftFile);
    await seedImpactSpans(ui.base);
    await check(ui.base, 'hostile');
  });
  afterAll(async () => {
    await ui?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The checks every tab passes: one h1, no console error, no other origin, no serious axe violation. */
  async function clean(p: UiPage, shot: string) {
    await p.screenshot(shot);
    expect(await p.page.locator('h1').count()).toBe(1);
    expect(await p.axe()).toEqual([]);
    expect(p.consoleErrors.join(' / ')).toBe('');
    expect(p.foreignRequests).toEqual([]);
  }

  it('drift: the classified changes and a diff naming the changed, removed and added parameters', async () => {
    const p = await openServerPage(ui, '/servers/drifting?tab=drift');
    try {
      const event = p.page.locator('article.drift-event');
      await event.waitFor({ timeout: 15_000 });
      await expect.poll(() => event.count()).toBe(1);
      const diff = p.page.getByRole('region', { name: 'Schema diff of tool lookup' });
      const row = (param: string) =>
        diff.getByRole('row').filter({ has: p.page.getByRole('rowheader', { name: param }) });
      expect(await row('id').innerText()).toContain('changed');
      expect(await row('id').innerText()).toContain('"type":"string"');
      expect(await row('id').innerText()).toContain('"type":"integer"');
      expect(await row('limit').innerText()).toContain('removed');
      expect(await row('filter').innerText()).toContain('added');
      // The classification is the server's, as the API gives it.
      const api = await gql(
        ui.base,
        '{ driftHistory(name: "drifting") { classification changes { paramName } } }',
      );
      const [e] = api.driftHistory;
      expect(await event.locator('h3 .cls').innerText()).toBe(e.classification);
      for (const c of e.changes)
        if (c.paramName)
          expect(await event.locator('table.drift-changes').innerText()).toContain(c.paramName);
      await clean(p, 'server-drift');
    } finally {
      await p.close();
    }
  });

  it('tools: each tool with its description and input schema, collapsible', async () => {
    const p = await openServerPage(ui, '/servers/drifting?tab=tools');
    try {
      const entry = p.page.locator('.tool-list details').first();
      await entry.waitFor({ timeout: 15_000 });
      expect(await entry.locator('pre.schema').isVisible()).toBe(false);
      await entry.locator('summary').click();
      const schema = await entry.locator('pre.schema').first().innerText();
      expect(JSON.parse(schema)).toMatchObject({
        properties: { id: { type: 'integer' }, filter: { type: 'string' } },
      });
      expect(await entry.locator('.tool-desc').innerText()).toBe('Looks a row up by id.');
      await clean(p, 'server-tools');
    } finally {
      await p.close();
    }
  });

  it('security: scan now shows progress, then the findings with hostile text escaped', async () => {
    const p = await openServerPage(ui, '/servers/poisoned?tab=security');
    try {
      await p.page.getByText('Never scanned.').waitFor({ timeout: 15_000 });
      // Hold the scan's request so the busy state is seen, whatever the machine's speed.
      let release = () => {};
      const held = new Promise<void>((r) => (release = r));
      await p.page.route('**/graphql', async (route) => {
        if (route.request().postData()?.includes('RunServerScan')) await held;
        await route.continue();
      });
      await p.page.getByRole('button', { name: 'Scan now' }).click();
      const busy = p.page.getByRole('button', { name: 'Scanning…' });
      await busy.waitFor();
      expect(await busy.isDisabled()).toBe(true);
      expect(await p.page.locator('.scan-now').getAttribute('aria-busy')).toBe('true');
      release();
      await expect
        .poll(() => p.page.locator('.scan-now [role=status]').innerText(), { timeout: 30_000 })
        .toMatch(/^Scan done: \d+ findings?/);
      expect(await p.page.getByRole('button', { name: 'Scan now' }).isEnabled()).toBe(true);
      const finding = p.page.locator('li.finding').filter({ hasText: 'poisoning.instruction-tag' });
      await finding.waitFor({ timeout: 15_000 });
      // The scan is on record over the API, and the page shows what it found.
      const api = await gql(ui.base, '{ securityScanHistory(name: "poisoned") { findingsCount } }');
      expect(api.securityScanHistory).toHaveLength(1);
      expect(await p.page.locator('li.finding').count()).toBe(
        api.securityScanHistory[0].findingsCount,
      );
      // Markup from the server is text: visible literally, no element made of it, nothing ran.
      const evidence = await finding.locator('pre.evidence').innerText();
      expect(evidence).toContain('<IMPORTANT>');
      expect(
        await p.page
          .locator('.server-security img, .server-security script, .server-security important')
          .count(),
      ).toBe(0);
      expect(
        await p.page.evaluate(() => (window as { __pwned?: unknown }).__pwned),
      ).toBeUndefined();
      expect(await finding.locator('h4', { hasText: 'Remediation' }).count()).toBe(1);
      await clean(p, 'server-security');
    } finally {
      await p.close();
    }
  });

  it('security for a viewer: the findings, and no scan now', async () => {
    const p = await openServerPage(ui, '/servers/poisoned?tab=security', viewerKey);
    try {
      await p.page.locator('li.finding').first().waitFor({ timeout: 15_000 });
      expect(await p.page.getByTestId('who').innerText()).toContain('(viewer)');
      expect(await p.page.getByRole('button', { name: 'Scan now' }).count()).toBe(0);
      await clean(p, 'server-security-viewer');
    } finally {
      await p.close();
    }
  });

  it('tools of the poisoned server: the description with markup is shown as text', async () => {
    const p = await openServerPage(ui, '/servers/poisoned?tab=tools');
    try {
      const entry = p.page.locator('.tool-list details').first();
      await entry.waitFor({ timeout: 15_000 });
      await entry.locator('summary').click();
      const desc = await entry.locator('.tool-desc').innerText();
      expect(desc).toContain('<img src=x onerror="window.__pwned=1">');
      expect(desc).toContain('<script>window.__pwned=2</script>');
      expect(await p.page.locator('.server-tools img, .server-tools script').count()).toBe(0);
      expect(
        await p.page.evaluate(() => (window as { __pwned?: unknown }).__pwned),
      ).toBeUndefined();
      await clean(p, 'server-tools-poisoned');
    } finally {
      await p.close();
    }
  });

  it('tools of the hostile server: escapes, NUL and bidi characters shown as escapes, not acted on', async () => {
    const p = await openServerPage(ui, '/servers/hostile?tab=tools');
    try {
      const names = p.page.locator('.tool-list summary code.tool-name');
      await names.first().waitFor({ timeout: 15_000 });
      const shown = await names.allInnerTexts();
      const visible = (s: string) =>
        s.replace(
          /[\u0000-\u001f\u202e]/g,
          (c) => `\\u{${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}}`,
        );
      expect(shown).toContain(visible(ESCAPE_NAME));
      expect(shown).toContain(visible(NUL_NAME));
      expect(shown.join('')).not.toMatch(/[\u0000\u001b\u202e]/);
      await clean(p, 'server-tools-hostile');
    } finally {
      await p.close();
    }
  });

  it('impact: the agent and sessions an outage reaches, and a tool change, linked', async () => {
    const p = await openServerPage(ui, '/servers/drifting?tab=impact');
    try {
      const agents = p.page.locator('table.impact-agents');
      await agents.waitFor({ timeout: 15_000 });
      expect(await agents.getByRole('link', { name: 'planner' }).getAttribute('href')).toBe(
        '/agents/planner',
      );
      const sessions = p.page.locator('table.impact-sessions').first();
      expect(await sessions.getByRole('link', { name: 'impact-1' }).getAttribute('href')).toBe(
        '/sessions/impact-1',
      );
      const api = await gql(
        ui.base,
        '{ blastRadius(name: "drifting") { totalSessions affectedAgents { agentName } } }',
      );
      expect(api.blastRadius).toEqual({
        totalSessions: 2,
        affectedAgents: [{ agentName: 'planner' }],
      });
      await p.page.getByLabel('Tool').selectOption('lookup');
      await expect.poll(() => new URL(p.page.url()).searchParams.get('tool')).toBe('lookup');
      const consumers = p.page.locator('table.impact-consumers');
      await consumers.waitFor({ timeout: 15_000 });
      expect(await consumers.getByRole('link', { name: 'planner' }).count()).toBe(1);
      expect(await p.page.locator('.tool-impact').innerText()).toContain('2 sessions');
      await clean(p, 'server-impact');
      // A session link opens the session page.
      await sessions.getByRole('link', { name: 'impact-2' }).click();
      await expect.poll(() => new URL(p.page.url()).pathname).toBe('/sessions/impact-2');
    } finally {
      await p.close();
    }
  });
});
