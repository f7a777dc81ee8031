import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, createKey } from '../helpers/auth.ts';
import { openSignedIn, startUi, type UiPage, type UiServer } from '../helpers/ui.ts';
import { AGENT_SEED, gqlWithKey, seedAgents } from '../helpers/ui-seed-agents.ts';

const CONFIG = `query ($a: String) { preventionConfig(agentName: $a, projectId: "default") {
  source loopThreshold maxSteps } }`;

/** The agent list and agent page in Chromium against a real server (docs/ui.md#agents). */
describe('agents pages (browser)', () => {
  let ui: UiServer;
  const boot = bootstrapKey();
  let admin: string;
  let viewer: string;
  beforeAll(async () => {
    ui = await startUi({ SPYGLASS_API_KEYS: boot });
    admin = (await createKey(ui.base, boot, { role: 'admin', name: 'ui admin' })).key;
    viewer = (await createKey(ui.base, boot, { role: 'viewer', name: 'ui viewer' })).key;
    await seedAgents(ui.base, admin);
    // A project default, so removing alpha's override has something other than the built-ins.
    await gqlWithKey(
      ui.base,
      admin,
      'mutation { setPreventionConfig(projectId: "default", input: {loopThreshold: 9}) { id } }',
    );
  });
  afterAll(async () => ui?.close());

  const expectClean = async (p: UiPage) => {
    expect(await p.page.locator('h1').count()).toBe(1);
    expect(await p.axe()).toEqual([]);
    expect(p.consoleErrors.join(' / ')).toBe('');
    expect(p.foreignRequests).toEqual([]);
  };

  it('lists both agents with sessions, error rate, cost and servers; sorts in the URL', async () => {
    const p = await openSignedIn(ui, admin, '/agents', 'Agents');
    try {
      const rows = p.page.locator('table.agents-table tbody tr');
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
      const stats = (await gqlWithKey(
        ui.base,
        admin,
        '{ agentSessionStats { agentName estCostUsd } }',
      )) as { agentSessionStats: { agentName: string; estCostUsd: number }[] };
      for (const [name, want] of Object.entries(AGENT_SEED)) {
        const row = rows.filter({ has: p.page.getByRole('link', { name, exact: true }) });
        const cells = await row.locator('td').allInnerTexts();
        const rate = `${((want.failed / want.calls) * 100).toFixed(1)} %`;
        const cost = stats.agentSessionStats.find((s) => s.agentName === name)!.estCostUsd;
        expect(cost).toBeGreaterThan(0);
        expect(cells.slice(0, 4)).toEqual([
          String(want.sessions),
          rate,
          `$${cost.toFixed(4)}`,
          want.servers.join(', '),
        ]);
        expect(await row.getByRole('link', { name, exact: true }).getAttribute('href')).toBe(
          `/agents/${name}`,
        );
        expect(await row.getByRole('link', { name: 'filesystem' }).getAttribute('href')).toBe(
          '/servers/filesystem',
        );
      }
      // Default: most sessions first; by name, then the other way.
      const names = () => rows.locator('th').allInnerTexts();
      expect(await names()).toEqual(['alpha', 'beta']);
      await p.page.getByRole('button', { name: 'Error rate' }).click();
      await expect.poll(names).toEqual(['beta', 'alpha']);
      expect(new URL(p.page.url()).searchParams.get('sort')).toBe('errors');
      await p.page.getByRole('button', { name: 'Error rate' }).click();
      await expect.poll(names).toEqual(['alpha', 'beta']);
      expect(new URL(p.page.url()).searchParams.get('dir')).toBe('asc');
      await p.screenshot('agents');
      await expectClean(p);
    } finally {
      await p.close();
    }
  });

  it('the agent page lists the servers it calls and its sessions, with links', async () => {
    const p = await openSignedIn(ui, admin, '/agents', 'Agents');
    try {
      await p.page.getByRole('link', { name: 'alpha', exact: true }).click();
      await p.page.getByRole('heading', { level: 1, name: 'Agent' }).waitFor();
      expect(new URL(p.page.url()).pathname).toBe('/agents/alpha');
      const servers = p.page.locator('table.agent-servers tbody tr');
      await expect
        .poll(() => servers.locator('th').allInnerTexts())
        .toEqual(['filesystem', 'github']);
      expect(await servers.first().locator('td').allInnerTexts()).toEqual(
        expect.arrayContaining(['3', '0']),
      );
      expect(await servers.getByRole('link', { name: 'github' }).getAttribute('href')).toBe(
        '/servers/github',
      );
      const sessions = p.page.locator('table.agent-sessions tbody tr th a');
      expect((await sessions.allInnerTexts()).sort()).toEqual(['alpha-s1', 'alpha-s2', 'alpha-s3']);
      expect(await sessions.first().getAttribute('href')).toMatch(/^\/sessions\/alpha-s\d$/);
      const all = p.page.getByRole('link', { name: 'All 3 sessions of alpha' });
      expect(await all.getAttribute('href')).toBe('/sessions?agent=alpha');
      expect(await p.page.getByTestId('agent-error-rate').innerText()).toBe('16.7 %');
      await p.page.getByTestId('prevention-source').waitFor();
      await p.screenshot('agent');
      await expectClean(p);
    } finally {
      await p.close();
    }
  });

  it('an admin saves an override (validation shown next to the form), then removes it', async () => {
    const p = await openSignedIn(ui, admin, '/agents/alpha', 'Agent');
    try {
      const source = p.page.getByTestId('prevention-source');
      await expect.poll(() => source.innerText(), { timeout: 15_000 }).toBe('project default');
      expect(await p.page.getByLabel('Loop threshold').inputValue()).toBe('9');
      // A value GraphQL refuses (not an Int), then one the service refuses: each under its field.
      await p.page.getByLabel('Loop threshold').fill('2.5');
      await p.page.getByRole('button', { name: 'Save as override' }).click();
      await expect
        .poll(() => p.page.locator('#pc-loopThreshold-error').innerText())
        .toContain('Int cannot represent non-integer value');
      await p.page.getByLabel('Loop threshold').fill('0');
      await p.page.getByRole('button', { name: 'Save as override' }).click();
      await expect
        .poll(() => p.page.locator('#pc-loopThreshold-error').innerText())
        .toContain('must be an integer ≥ 1');
      expect(await p.page.getByRole('alert').innerText()).toContain('Not saved');
      expect(await p.page.getByLabel('Loop threshold').getAttribute('aria-invalid')).toBe('true');
      expect(
        (await gqlWithKey(ui.base, admin, CONFIG, { a: 'alpha' })).preventionConfig.source,
      ).toBe('project');

      await p.page.getByLabel('Loop threshold').fill('7');
      await p.page.getByLabel('Max steps').fill('40');
      await p.page.getByRole('button', { name: 'Save as override' }).click();
      await expect.poll(() => source.innerText()).toBe('agent override');
      await expect
        .poll(() => p.page.locator('main').getByRole('status').last().innerText())
        .toBe('Saved as override.');
      expect((await gqlWithKey(ui.base, admin, CONFIG, { a: 'alpha' })).preventionConfig).toEqual({
        source: 'agent',
        loopThreshold: 7,
        maxSteps: 40,
      });
      expect(await p.axe()).toEqual([]);

      // Removing asks first; Cancel keeps the override.
      await p.page.getByRole('button', { name: 'Remove override' }).click();
      await p.page.getByRole('button', { name: 'Cancel' }).click();
      expect(
        (await gqlWithKey(ui.base, admin, CONFIG, { a: 'alpha' })).preventionConfig.source,
      ).toBe('agent');
      await p.page.getByRole('button', { name: 'Remove override' }).click();
      await p.page.getByRole('button', { name: 'Yes, remove the override' }).click();
      await expect.poll(() => source.innerText()).toBe('project default');
      expect(await p.page.getByLabel('Loop threshold').inputValue()).toBe('9');
      expect((await gqlWithKey(ui.base, admin, CONFIG, { a: 'alpha' })).preventionConfig).toEqual({
        source: 'project',
        loopThreshold: 9,
        maxSteps: null,
      });
      expect(await p.page.getByRole('button', { name: 'Remove override' }).count()).toBe(0);
      await expectClean(p);
    } finally {
      await p.close();
    }
  });

  it('a viewer reads the config with no edit control', async () => {
    await gqlWithKey(
      ui.base,
      admin,
      'mutation { setPreventionConfig(agentName: "beta", projectId: "default", input: {maxSteps: 12}) { id } }',
    );
    const p = await openSignedIn(ui, viewer, '/agents/beta', 'Agent');
    try {
      const source = p.page.getByTestId('prevention-source');
      await expect.poll(() => source.innerText(), { timeout: 15_000 }).toBe('agent override');
      const values = p.page.locator('table.prevention-values');
      expect(
        await values
          .getByRole('row', { name: /Max steps/ })
          .locator('td')
          .innerText(),
      ).toBe('12');
      expect(await p.page.locator('[data-admin]').count()).toBe(0);
      expect(await p.page.locator('.prevention input, .prevention select').count()).toBe(0);
      expect(await p.page.getByRole('button', { name: /override/ }).count()).toBe(0);
      await expectClean(p);
    } finally {
      await p.close();
    }
  });
});
