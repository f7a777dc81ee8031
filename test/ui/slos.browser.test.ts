import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey } from '../helpers/auth.ts';
import { openSignedIn, startUi, type UiPage, type UiServer } from '../helpers/ui.ts';
import { createSlo, keys, listSlos, seedSessions, type SloJson } from '../helpers/ui-seed-slos.ts';

/** The SLOs page (docs/ui.md#slos) in Chromium against a real server with keys on. */
describe('SLOs page (browser)', () => {
  let ui: UiServer;
  let admin: string;
  let viewer: string;
  let met: SloJson;
  let breached: SloJson;
  const boot = bootstrapKey();

  beforeAll(async () => {
    ui = await startUi({ SPYGLASS_API_KEYS: boot });
    ({ admin, viewer } = await keys(ui.base, boot));
    // met-agent: 4 of 4 sessions succeed; breach-agent: 1 of 3.
    await seedSessions(ui.base, admin, 'met-agent', 4, 0);
    await seedSessions(ui.base, admin, 'breach-agent', 1, 2);
    met = await createSlo(ui.base, admin, {
      agent_name: 'met-agent',
      metric: 'success_rate',
      threshold: 90,
    });
    breached = await createSlo(ui.base, admin, {
      agent_name: 'breach-agent',
      metric: 'success_rate',
      threshold: 0.8,
    });
  });
  afterAll(async () => ui?.close());

  const rows = (p: UiPage) => p.page.locator('table.slo-table tbody tr');
  const row = (p: UiPage, agent: string) => rows(p).filter({ hasText: agent });
  const open = async (path: string, key = admin, heading = 'SLOs') => {
    return openSignedIn(ui, key, path, heading);
  };
  const clean = (p: UiPage) => {
    expect(p.consoleErrors.join(' / ')).toBe('');
    expect(p.foreignRequests).toEqual([]);
  };

  it('shows each SLO met or breached with target, current value, sessions and since; filters breached', async () => {
    const p = await open('/slos');
    try {
      await expect.poll(() => rows(p).count(), { timeout: 15_000 }).toBe(2);
      const cells = async (agent: string) =>
        (await row(p, agent).locator('th, td').allInnerTexts()).map((t) => t.trim());
      expect((await cells('met-agent')).slice(0, 7)).toEqual([
        'met-agent',
        'success rate',
        '90%',
        '100%',
        'met',
        '4',
        '24 h',
      ]);
      expect((await cells('breach-agent')).slice(0, 7)).toEqual([
        'breach-agent',
        'success rate',
        '80%',
        '33.33%',
        'breached',
        '3',
        '24 h',
      ]);
      // Since: when the status began, an instant of the first evaluation.
      expect(await row(p, 'breach-agent').locator('time').getAttribute('datetime')).toMatch(
        /^\d{4}-\d\d-\d\dT/,
      );
      expect(await p.page.locator('main').getByRole('status').innerText()).toBe(
        '2 of 2 SLOs shown, 1 breached',
      );
      expect(await p.page.getByRole('heading', { level: 1 }).count()).toBe(1);
      await p.screenshot('slos');
      expect(await p.axe()).toEqual([]);
      await p.page.emulateMedia({ colorScheme: 'dark' });
      expect(await p.axe()).toEqual([]);
      await p.page.emulateMedia({ colorScheme: 'light' });

      await p.page.getByLabel('Status').selectOption('breached');
      await expect.poll(() => rows(p).count()).toBe(1);
      expect(new URL(p.page.url()).searchParams.get('status')).toBe('breached');
      expect(await rows(p).first().locator('th').innerText()).toBe('breach-agent');
      clean(p);
    } finally {
      await p.close();
    }
  });

  it("the overview's link (?status=breached), ?state=breached and ?slo=<id> open the filtered list and one SLO", async () => {
    const overview = await open('/', admin, 'Overview');
    try {
      await overview.page.locator('a.tile[href^="/slos"]').click();
      expect(new URL(overview.page.url()).search).toBe('?status=breached');
      await overview.page.getByRole('heading', { level: 1, name: 'SLOs' }).waitFor();
      await expect.poll(() => rows(overview).count(), { timeout: 15_000 }).toBe(1);
      expect(await rows(overview).first().locator('th').innerText()).toBe('breach-agent');
    } finally {
      await overview.close();
    }
    const p = await open(`/slos?state=breached&slo=${breached.slo_id}`);
    try {
      await p.page.getByRole('heading', { level: 2, name: /SLO: breach-agent/ }).waitFor();
      expect(await rows(p).count()).toBe(1);
      expect(await p.page.locator('.slo-detail dd.mono').innerText()).toBe(breached.slo_id);
      expect(await p.axe()).toEqual([]);
      clean(p);
    } finally {
      await p.close();
    }
  });

  it('an admin creates an SLO (the server refuses a bad target next to the form), then sees it over the API', async () => {
    const p = await open('/slos');
    try {
      const form = p.page.locator('form.slo-form').filter({ hasText: 'Define an SLO' });
      await form.getByLabel('Agent').fill('new-agent');
      await form.getByLabel('Target').fill('150');
      await form.getByRole('button', { name: 'Create SLO' }).click();
      // The server's refusal above the form, its word on the field under the field.
      await expect
        .poll(() => form.locator('.field-error').allInnerTexts())
        .toEqual([expect.stringContaining('percentage in (0, 100]')]);
      expect(await form.getByRole('alert').innerText()).toContain('VALIDATION');
      expect(await form.getByLabel('Target').getAttribute('aria-invalid')).toBe('true');
      expect(await p.axe()).toEqual([]);

      await form.getByLabel('Metric').selectOption('latency_p99');
      await form.getByLabel('Target').fill('2000');
      await form.getByLabel('Window (hours)').fill('6');
      await form.getByRole('button', { name: 'Create SLO' }).click();
      await p.page.getByRole('heading', { level: 2, name: /SLO: new-agent/ }).waitFor();
      const made = (await listSlos(ui.base, admin)).find((s) => s.agent_name === 'new-agent');
      expect(made).toMatchObject({ metric: 'latency_p99', threshold: 2000, window_hours: 6 });
      expect(new URL(p.page.url()).searchParams.get('slo')).toBe(made?.slo_id);
      await expect.poll(() => row(p, 'new-agent').locator('td').nth(3).innerText()).toBe('no data');
      clean(p);
    } finally {
      await p.close();
    }
  });

  it('an admin edits an SLO in place; the change is over the API', async () => {
    const p = await open(`/slos?slo=${met.slo_id}`);
    try {
      await p.page.getByRole('heading', { level: 2, name: /SLO: met-agent/ }).waitFor();
      await p.page.getByRole('button', { name: 'Edit' }).click();
      const form = p.page.locator('form.slo-form').filter({ hasText: 'Edit this SLO' });
      await expect
        .poll(() => p.page.evaluate(() => document.activeElement?.getAttribute('name')))
        .toBe('agentName');
      await form.getByLabel('Window (hours)').fill('12');
      await form.getByLabel('Target').fill('95');
      await form.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => row(p, 'met-agent').locator('td').nth(5).innerText()).toBe('12 h');
      const after = (await listSlos(ui.base, admin)).find((s) => s.slo_id === met.slo_id);
      expect(after).toMatchObject({ threshold: 95, window_hours: 12, agent_name: 'met-agent' });
      clean(p);
    } finally {
      await p.close();
    }
  });

  it('an admin deletes an SLO only after confirming; it is gone over the API', async () => {
    const doomed = await createSlo(ui.base, admin, {
      agent_name: 'doomed-agent',
      metric: 'latency_p99',
      threshold: 500,
    });
    const p = await open(`/slos?slo=${doomed.slo_id}`);
    try {
      await p.page.getByRole('heading', { level: 2, name: /SLO: doomed-agent/ }).waitFor();
      await p.page.getByRole('button', { name: 'Delete' }).click();
      const confirm = p.page.getByRole('group', { name: /Delete the SLO of doomed-agent/ });
      await confirm.waitFor();
      // The confirmation takes focus, on its safe choice.
      await expect
        .poll(() => p.page.evaluate(() => document.activeElement?.textContent))
        .toBe('Cancel');
      expect(await p.axe()).toEqual([]);
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      expect((await listSlos(ui.base, admin)).map((s) => s.slo_id)).toContain(doomed.slo_id);

      await p.page.getByRole('button', { name: 'Delete' }).click();
      await p.page.getByRole('button', { name: 'Confirm delete' }).click();
      await expect.poll(() => row(p, 'doomed-agent').count()).toBe(0);
      expect(new URL(p.page.url()).searchParams.get('slo')).toBeNull();
      expect((await listSlos(ui.base, admin)).map((s) => s.slo_id)).not.toContain(doomed.slo_id);
      clean(p);
    } finally {
      await p.close();
    }
  });

  it('a viewer sees the status but no create, edit or delete', async () => {
    const p = await open(`/slos?slo=${breached.slo_id}`, viewer);
    try {
      await p.page.getByRole('heading', { level: 2, name: /SLO: breach-agent/ }).waitFor();
      expect(await rows(p).count()).toBeGreaterThanOrEqual(2);
      for (const name of ['Create SLO', 'Edit', 'Delete', 'Save'])
        expect(await p.page.getByRole('button', { name }).count()).toBe(0);
      expect(await p.page.locator('form.slo-form').count()).toBe(0);
      expect(await p.page.locator('[data-admin]').count()).toBe(0);
      expect(await p.axe()).toEqual([]);
      clean(p);
    } finally {
      await p.close();
    }
  });
});
