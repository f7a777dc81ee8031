import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOD_PASSWORD, bootstrapKey, call, createKey, createProject } from '../helpers/auth.ts';
import { expectCleanPage } from '../helpers/ui-seed-settings.ts';
import { openSignedIn, startUi, type UiServer } from '../helpers/ui.ts';

/** The admin settings pages: projects, users and invitations, API keys (docs/ui.md). */
describe('settings: projects, users, API keys (browser)', () => {
  let ui: UiServer;
  let admin: string;
  const boot = bootstrapKey();
  beforeAll(async () => {
    ui = await startUi({ SPYGLASS_API_KEYS: boot });
    admin = (await createKey(ui.base, boot, { name: 'ui admin', role: 'admin' })).key;
  });
  afterAll(async () => ui?.close());

  const project = async (id: string) => call(ui.base, 'GET', `/api/projects/${id}`, { key: admin });

  it('creates a project, renames it and deletes it after its name is typed', async () => {
    const p = await openSignedIn(ui, admin, '/settings', 'Settings');
    try {
      const page = p.page;
      await page.getByRole('navigation', { name: 'Settings' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Team Alpha');
      await page.getByLabel('Id (optional)').fill('team-alpha');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('cell', { name: 'team-alpha', exact: true }).waitFor();
      expect((await project('team-alpha')).json).toMatchObject({ name: 'Team Alpha' });

      // The server's validation error shows next to the form.
      await page.getByLabel('Name', { exact: true }).fill('Duplicate');
      await page.getByLabel('Id (optional)').fill('team-alpha');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await expect
        .poll(() => page.locator('.settings-form [role=alert]').innerText())
        .toContain('already exists');

      await page.getByRole('button', { name: 'Rename Team Alpha' }).click();
      await page.getByLabel('New name for team-alpha').fill('Team Beta');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('cell', { name: 'Team Beta', exact: true }).waitFor();
      expect((await project('team-alpha')).json).toMatchObject({ name: 'Team Beta' });

      await page.getByRole('button', { name: 'Delete Team Beta' }).click();
      const confirm = page.getByRole('button', { name: 'Delete for good' });
      const typed = page.getByLabel("Type the project's name to confirm");
      expect(await confirm.isDisabled()).toBe(true);
      await typed.fill('Team Bet');
      expect(await confirm.isDisabled()).toBe(true);
      expect(await p.axe()).toEqual([]);
      await typed.fill('Team Beta');
      await confirm.click();
      await page
        .getByRole('cell', { name: 'team-alpha', exact: true })
        .waitFor({ state: 'detached' });
      expect((await project('team-alpha')).status).toBe(404);
      await expectCleanPage(p);
      await p.screenshot('settings-projects');
    } finally {
      await p.close();
    }
  });

  it('invites a user and shows the token once; changes the role and deactivates', async () => {
    const email = 'invited.person@example.com';
    const p = await openSignedIn(ui, admin, '/settings/users', 'Users');
    try {
      const page = p.page;
      await page.getByLabel('E-mail').fill(email);
      await page.getByRole('button', { name: 'Invite' }).click();
      const secret = page.getByTestId('secret');
      await secret.waitFor();
      const token = await secret.innerText();
      expect(token.length).toBeGreaterThan(20);
      expect(await page.getByText('It will not be shown again').count()).toBe(1);
      await page.getByRole('cell', { name: email, exact: true }).waitFor();
      await p.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
        origin: ui.base,
      });
      await page.getByRole('button', { name: 'Copy' }).click();
      await page.locator('main').getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
      await expectCleanPage(p);
      await p.screenshot('settings-users-invited');

      await page.reload();
      await page.getByRole('cell', { name: email, exact: true }).waitFor();
      expect(await page.getByTestId('secret').count()).toBe(0);
      expect(await page.content()).not.toContain(token);

      // The token shown is the one that works, once.
      const accepted = await call(ui.base, 'POST', '/api/users/accept-invite', {
        body: { token, password: GOOD_PASSWORD },
      });
      expect(accepted.status).toBe(200);

      await page.getByRole('button', { name: `Make admin (${email})` }).click();
      await expect.poll(async () => userOf(email)).toMatchObject({ role: 'admin' });
      // The only admin user cannot be deactivated: the server's refusal shows in the row.
      const deactivate = async () => {
        await page.getByRole('button', { name: `Deactivate ${email}` }).click();
        await page
          .getByRole('group', { name: `Deactivate ${email}` })
          .getByRole('button', { name: 'Deactivate' })
          .click();
      };
      await deactivate();
      await expect
        .poll(() => page.getByRole('row').filter({ hasText: email }).innerText())
        .toContain('refusing to remove the last admin');
      await page.getByRole('button', { name: 'Cancel' }).click();
      // With a second admin, the first may step down and leave.
      const second = await call(ui.base, 'POST', '/api/users/invite', {
        key: boot,
        body: { email: 'second.admin@example.com', role: 'admin' },
      });
      expect(second.status).toBe(201);
      const acceptedSecond = await call(ui.base, 'POST', '/api/users/accept-invite', {
        body: { token: second.json.invite_token, password: GOOD_PASSWORD },
      });
      expect(acceptedSecond.status).toBe(200);
      await page.getByRole('button', { name: `Make viewer (${email})` }).click();
      await expect.poll(async () => userOf(email)).toMatchObject({ role: 'viewer' });
      await deactivate();
      await expect.poll(async () => userOf(email)).toMatchObject({ status: 'deactivated' });
      await page.getByRole('cell', { name: 'deactivated', exact: true }).waitFor();
      await expectCleanPage(p);
    } finally {
      await p.close();
    }
  });

  async function userOf(email: string): Promise<{ role: string; status: string } | undefined> {
    const r = await call(ui.base, 'GET', '/api/users', { key: admin });
    return (r.json as { email: string; role: string; status: string }[]).find(
      (u) => u.email === email,
    );
  }

  it('creates an API key shown once that works, and revokes it (then 401)', async () => {
    const p = await openSignedIn(ui, admin, '/settings/keys', 'API keys');
    try {
      const page = p.page;
      await page.getByLabel('Name', { exact: true }).fill('ci key');
      await page.getByLabel('Role').selectOption('viewer');
      await page.getByRole('button', { name: 'Create key' }).click();
      const secret = page.getByTestId('secret');
      await secret.waitFor();
      const key = await secret.innerText();
      expect((await call(ui.base, 'GET', '/api/projects', { key })).status).toBe(200);
      await page.getByRole('cell', { name: 'ci key', exact: true }).waitFor();
      await expectCleanPage(p);
      await p.screenshot('settings-keys-created');

      await page.reload();
      await page.getByRole('cell', { name: 'ci key', exact: true }).waitFor();
      expect(await page.getByTestId('secret').count()).toBe(0);
      expect(await page.content()).not.toContain(key);

      await page.getByRole('button', { name: 'Revoke ci key' }).click();
      await page
        .getByRole('group', { name: 'Revoke ci key' })
        .getByRole('button', { name: 'Revoke' })
        .click();
      await page.getByRole('cell', { name: 'ci key', exact: true }).waitFor({ state: 'detached' });
      expect((await call(ui.base, 'GET', '/api/projects', { key })).status).toBe(401);
      await page.getByLabel('Show revoked keys').check();
      await page.getByRole('cell', { name: 'ci key', exact: true }).waitFor();
      expect(await page.getByRole('button', { name: 'Revoke ci key' }).count()).toBe(0);
      await expectCleanPage(p);
    } finally {
      await p.close();
    }
  });

  it('pages through the keys 50 at a time, the page in the URL', async () => {
    for (let i = 0; i < 50; i++)
      await createKey(ui.base, boot, { name: `bulk key ${i}`, role: 'viewer' });
    const p = await openSignedIn(ui, admin, '/settings/keys', 'API keys');
    try {
      const page = p.page;
      const rows = page.locator('.settings-table tbody tr');
      await page.getByRole('cell', { name: 'bulk key 49', exact: true }).waitFor();
      expect(await rows.count()).toBe(50);
      await page.getByRole('button', { name: 'Next 50 keys' }).click();
      await page.getByRole('cell', { name: 'ui admin', exact: true }).waitFor();
      expect(new URL(page.url()).searchParams.get('after')).toBeTruthy();
      expect(await page.getByRole('cell', { name: 'bulk key 49', exact: true }).count()).toBe(0);
      await page.getByRole('button', { name: 'First page' }).click();
      await page.getByRole('cell', { name: 'bulk key 49', exact: true }).waitFor();
      expect(new URL(page.url()).searchParams.get('after')).toBeNull();
      await expectCleanPage(p);
    } finally {
      await p.close();
    }
  });

  it('a viewer sees no Settings and gets the admins-only message', async () => {
    const viewer = (await createKey(ui.base, boot, { name: 'ui viewer', role: 'viewer' })).key;
    const p = await openSignedIn(ui, viewer, '/', 'Overview');
    try {
      const main = p.page.getByRole('navigation', { name: 'Main' });
      await main.getByRole('link', { name: 'Overview' }).waitFor();
      expect(await main.getByRole('link', { name: 'Settings' }).count()).toBe(0);
      await p.page.goto(`${ui.base}/settings/keys`);
      await p.page.getByRole('heading', { level: 2, name: 'Admins only' }).waitFor();
      expect(await p.page.locator('[data-admin]').count()).toBe(0);
      await expectCleanPage(p);
    } finally {
      await p.close();
    }
  });

  it("a project-bound admin reads the server's refusal of the users list", async () => {
    await createProject(ui.base, boot, 'bound-one');
    const bound = (await createKey(ui.base, boot, { role: 'admin', project_id: 'bound-one' })).key;
    const p = await openSignedIn(ui, bound, '/settings/users', 'Users');
    try {
      const alert = p.page.locator('.error-state');
      await alert.waitFor();
      expect(await alert.innerText()).toContain('FORBIDDEN');
      expect(await p.page.getByRole('heading', { name: 'Invite a user' }).count()).toBe(0);
      await p.page.goto(`${ui.base}/settings/projects`);
      await p.page.getByRole('cell', { name: 'bound-one', exact: true }).waitFor();
      expect(await p.page.getByRole('heading', { name: 'Create a project' }).count()).toBe(0);
      expect(await p.axe()).toEqual([]);
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });
});
