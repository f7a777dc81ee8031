import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, call, createKey, createProject, expectStatus } from '../helpers/auth.ts';
import { nativeSpan } from '../helpers/spans.ts';
import { openSignedIn, seedSpans, startUi, type UiPage, type UiServer } from '../helpers/ui.ts';
import { gqlWithKey } from '../helpers/ui-seed-settings-admin.ts';

const HOSTILE = '<img src=x onerror=alert(1)>';

/** The audit log and instance settings pages (docs/ui.md#settings-audit-log-instance), keys on. */
describe('settings: audit log and instance (browser)', () => {
  let ui: UiServer;
  let admin: string;
  let viewer: string;
  beforeAll(async () => {
    const boot = bootstrapKey();
    ui = await startUi({ SPYGLASS_API_KEYS: boot });
    admin = (await createKey(ui.base, boot, { name: 'ui admin', role: 'admin' })).key;
    viewer = (await createKey(ui.base, boot, { name: 'ui viewer', role: 'viewer' })).key;
  });
  afterAll(async () => ui?.close());

  /** Every page: no console error, nothing from another origin, axe clean, one h1. */
  async function checkPage(p: UiPage): Promise<void> {
    expect(await p.axe()).toEqual([]);
    expect(await p.page.locator('h1').count()).toBe(1);
    expect(p.consoleErrors.join(' / ')).toBe('');
    expect(p.foreignRequests).toEqual([]);
  }

  it('lists what was just done, narrows it by filters kept in the URL, and shows hostile text as text', async () => {
    await createProject(ui.base, admin, 'audited-ui');
    await gqlWithKey(
      ui.base,
      admin,
      `mutation ($a: String) { setPreventionConfig(agentName: $a, input: { loopThreshold: 4 }) { id } }`,
      { a: HOSTILE },
    );
    // openPage records (and dismisses) every dialog from the page's first load.
    const p = await openSignedIn(ui, admin, '/settings/audit', 'Audit log');
    try {
      const table = p.page.locator('table.audit-table');
      const target = table.locator('td.target');
      await expect
        .poll(() => target.allInnerTexts(), { timeout: 15_000 })
        .toContain('project:audited-ui');
      // The agent name is in the entry as text: no element was made of it, no script ran.
      expect(await target.allInnerTexts()).toContain(`prevention_config:default/${HOSTILE}`);
      expect(await table.locator('img').count()).toBe(0);
      expect(p.dialogs).toEqual([]);
      await p.page.getByRole('navigation', { name: 'Settings' }).waitFor();
      await p.screenshot('settings-audit');
      await checkPage(p);

      await p.page.getByLabel('Target starts with').fill('project:');
      await p.page.getByLabel('Action').fill('project.created');
      await p.page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => target.allInnerTexts()).toEqual(['project:audited-ui']);
      const url = new URL(p.page.url());
      expect(url.searchParams.get('target')).toBe('project:');
      expect(url.searchParams.get('action')).toBe('project.created');
      expect(await table.locator('tbody tr td:nth-child(3)').allInnerTexts()).toEqual([
        'project.created',
      ]);

      // A time range before anything happened leaves nothing; the URL holds it too.
      await p.page.getByLabel('Until (local time)').fill('2020-01-01T00:00:00');
      await p.page.getByRole('button', { name: 'Apply' }).click();
      await p.page.getByText('No audit entries match these filters.').waitFor();
      expect(new URL(p.page.url()).searchParams.get('until')).toBe(
        new Date('2020-01-01T00:00:00').toISOString(),
      );
      expect(p.consoleErrors.join(' / ')).toBe('');
    } finally {
      await p.close();
    }
  });

  it('pages older entries by cursor, newest first, within the filter of the URL', async () => {
    for (let i = 0; i < 52; i++)
      await createProject(ui.base, admin, `paged-${String(i).padStart(2, '0')}`);
    const p = await openSignedIn(ui, admin, '/settings/audit?target=project:paged-', 'Audit log');
    try {
      const status = p.page.locator('main').getByRole('status');
      await expect
        .poll(() => status.innerText(), { timeout: 15_000 })
        .toBe('50 entries, older ones below');
      const target = p.page.locator('table.audit-table td.target');
      await p.page.getByRole('button', { name: 'Show older entries' }).click();
      await expect.poll(() => status.innerText()).toBe('52 entries');
      const all = await target.allInnerTexts();
      expect(new Set(all)).toEqual(
        new Set(
          Array.from({ length: 52 }, (_, i) => `project:paged-${String(i).padStart(2, '0')}`),
        ),
      );
      const times = await p.page
        .locator('table.audit-table time')
        .evaluateAll((els) => els.map((e) => Date.parse(e.getAttribute('datetime') ?? '')));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      expect(await p.page.getByRole('button', { name: 'Show older entries' }).count()).toBe(0);
      expect(await p.page.getByLabel('Target starts with').inputValue()).toBe('project:paged-');
      expect(p.consoleErrors.join(' / ')).toBe('');
    } finally {
      await p.close();
    }
  });

  it('turns payload redaction on: the API says so and a span ingested afterwards has no payload', async () => {
    const p = await openSignedIn(ui, admin, '/settings/instance', 'Instance settings');
    try {
      const box = p.page.getByLabel('Redact payloads');
      await box.waitFor();
      expect(await box.isChecked()).toBe(false);
      await box.check();
      await p.page.getByRole('button', { name: 'Save instance settings' }).click();
      await p.page.getByText('Saved: payload redaction is on.').waitFor();
      const got = expectStatus(
        await call(ui.base, 'GET', '/api/settings', { key: admin }),
        200,
        'settings',
      );
      expect(got.json).toMatchObject({ redact_payloads: true });
      await p.screenshot('settings-instance');
      await checkPage(p);
    } finally {
      await p.close();
    }
    const span = nativeSpan({ session_id: 'redacted-after-ui', output_result: '"secret"' });
    await seedSpans(ui.base, [span], admin);
    const d = await gqlWithKey<{ span: { inputArgs: unknown; outputResult: unknown } }>(
      ui.base,
      admin,
      `query ($id: String!) { span(spanId: $id) { inputArgs outputResult } }`,
      { id: span.span_id },
    );
    expect(d.span).toEqual({ inputArgs: null, outputResult: null });
  });

  it("saves the project's prevention defaults, shows the server's validation error beside the form, and resets", async () => {
    const read = () =>
      gqlWithKey<{ preventionConfig: Record<string, unknown> }>(
        ui.base,
        admin,
        `{ preventionConfig { source loopThreshold maxSteps maxCostUsd budgetSoftAlert } }`,
      ).then((d) => d.preventionConfig);
    const p = await openSignedIn(ui, admin, '/settings/instance', 'Instance settings');
    try {
      await p.page.getByText('nothing saved, the built-in defaults apply').waitFor();
      await p.page.getByLabel('Repeats to flag').fill('7');
      await p.page.getByLabel('Max steps').fill('40');
      await p.page.getByLabel('Max cost (USD)').fill('2');
      await p.page.getByLabel(/^Soft alert/).fill('5');
      const save = p.page.getByRole('button', { name: 'Save prevention defaults' });
      await save.click();
      // The server refuses a soft alert amount above the max cost: its words, next to the field.
      const alert = p.page.locator('#prevention-error');
      await alert.waitFor();
      expect(await alert.innerText()).toContain('budget_soft_alert');
      expect(await p.page.getByLabel(/^Soft alert/).getAttribute('aria-invalid')).toBe('true');
      expect((await read()).source).toBe('default');
      await checkPage(p);

      await p.page.getByLabel(/^Soft alert/).fill('0.5');
      await save.click();
      await p.page
        .getByRole('status')
        .filter({ hasText: 'Saved: the prevention defaults of project default' })
        .waitFor();
      expect(await read()).toEqual({
        source: 'project',
        loopThreshold: 7,
        maxSteps: 40,
        maxCostUsd: 2,
        budgetSoftAlert: 0.5,
      });
      expect(await p.page.locator('#prevention-error').count()).toBe(0);

      // Resetting asks first.
      await p.page.getByRole('button', { name: 'Reset to built-in defaults…' }).click();
      await p.page.getByRole('group', { name: 'Confirm the reset' }).waitFor();
      await p.page.getByRole('button', { name: 'Reset', exact: true }).click();
      await p.page.getByText('Reset to the built-in defaults: the prevention defaults').waitFor();
      expect((await read()).source).toBe('default');
      expect(p.consoleErrors.join(' / ')).toBe('');
    } finally {
      await p.close();
    }
  });

  it("a project-bound admin reads instance settings without changing them, and sees the server's refusal of another project", async () => {
    await createProject(ui.base, admin, 'bound-p');
    const bound = (await createKey(ui.base, admin, { role: 'admin', project_id: 'bound-p' })).key;
    const p = await openSignedIn(ui, bound, '/settings/instance', 'Instance settings');
    try {
      await p.page
        .getByText('only an admin bound to no project changes instance settings')
        .waitFor();
      expect(await p.page.getByLabel('Redact payloads').isDisabled()).toBe(true);
      expect(await p.page.getByRole('button', { name: 'Save instance settings' }).count()).toBe(0);
      // Its prevention defaults are its project's.
      await p.page.getByText('nothing saved, the built-in defaults apply').waitFor();
      expect(await p.page.locator('.instance-section code').first().innerText()).toBe('bound-p');
      await checkPage(p);
      // Another project in the URL: the server refuses, and the page says so readably.
      await p.page.goto(`${ui.base}/settings/instance?project=default`);
      const refusal = p.page.getByRole('alert').filter({ hasText: 'FORBIDDEN' });
      await refusal.waitFor();
      expect(await refusal.innerText()).toContain('ask an admin');
      expect(p.consoleErrors.join(' / ')).toBe('');
    } finally {
      await p.close();
    }
  });

  it('tells a viewer these pages are for admins (the server refuses them too)', async () => {
    const p = await openSignedIn(ui, viewer, '/settings/audit', 'Audit log');
    try {
      await p.page.getByRole('heading', { level: 2, name: 'Admins only' }).waitFor();
      expect(await p.page.locator('table.audit-table').count()).toBe(0);
      await checkPage(p);
      await p.page.getByRole('link', { name: 'Instance' }).click();
      await p.page.getByRole('heading', { level: 1, name: 'Instance settings' }).waitFor();
      await p.page.getByRole('heading', { level: 2, name: 'Admins only' }).waitFor();
      expect(await p.page.getByRole('button', { name: /^Save/ }).count()).toBe(0);
      await checkPage(p);
    } finally {
      await p.close();
    }
    const res = await fetch(`${ui.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': viewer },
      body: JSON.stringify({ query: '{ auditLog(first: 1) { edges { cursor } } }' }),
    });
    const body = (await res.json()) as { errors?: { extensions?: { code?: string } }[] };
    expect(body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});
