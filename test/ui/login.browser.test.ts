import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOD_PASSWORD, bootstrapKey, call, expectStatus } from '../helpers/auth.ts';
import { openPage, startUi, type UiServer } from '../helpers/ui.ts';

/** Signing in to the dashboard with keys on (docs/ui.md#auth), in Chromium. */
describe('dashboard sign-in (browser)', () => {
  let ui: UiServer;
  const boot = bootstrapKey();
  const email = 'browser.viewer@example.com';
  beforeAll(async () => {
    ui = await startUi({ SPYGLASS_API_KEYS: boot });
    const invite = expectStatus(
      await call(ui.base, 'POST', '/api/users/invite', {
        key: boot,
        body: { email, role: 'viewer' },
      }),
      201,
      'invite',
    );
    expectStatus(
      await call(ui.base, 'POST', '/api/users/accept-invite', {
        body: { token: invite.json.invite_token, password: GOOD_PASSWORD },
      }),
      200,
      'accept',
    );
  });
  afterAll(async () => ui?.close());

  it('a viewer signs in with e-mail and password, sees no admin action, and signs out', async () => {
    const p = await openPage(ui, '/');
    try {
      await p.page.getByRole('heading', { level: 1, name: 'Sign in to Spyglass' }).waitFor();
      expect(await p.axe()).toEqual([]);
      await p.page.locator('#email').fill(email);
      await p.page.locator('#password').fill(GOOD_PASSWORD);
      await p.page.getByRole('button', { name: 'Sign in' }).click();
      await p.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      expect(await p.page.getByTestId('who').innerText()).toBe(`${email} (viewer)`);
      expect(await p.page.locator('[data-admin]').count()).toBe(0);
      const cookies = await p.context.cookies();
      expect(cookies.find((c) => c.name === 'spyglass_session')).toMatchObject({
        httpOnly: true,
        sameSite: 'Strict',
      });
      await p.screenshot('signed-in-viewer');
      await p.page.getByRole('button', { name: 'Sign out' }).click();
      await p.page.getByRole('heading', { level: 1, name: 'Sign in to Spyglass' }).waitFor();
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it("signs in with an API key: the key's role and project scope, and signs out", async () => {
    const created = expectStatus(
      await call(ui.base, 'POST', '/api/auth/api-keys', {
        key: boot,
        body: { name: 'browser viewer key', role: 'viewer' },
      }),
      201,
      'create key',
    );
    const p = await openPage(ui, '/');
    try {
      await p.page.getByRole('heading', { level: 1, name: 'Sign in to Spyglass' }).waitFor();
      await p.page.getByRole('radio', { name: 'API key' }).check();
      await p.page.locator('#key').fill(String(created.json.key));
      await p.page.getByRole('button', { name: 'Sign in' }).click();
      await p.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      expect(await p.page.getByTestId('who').innerText()).toContain('(viewer)');
      expect(await p.page.locator('[data-admin]').count()).toBe(0);
      const cookies = await p.context.cookies();
      expect(cookies.find((c) => c.name === 'spyglass_session')).toMatchObject({
        httpOnly: true,
        sameSite: 'Strict',
      });
      await p.page.getByRole('button', { name: 'Sign out' }).click();
      await p.page.getByRole('heading', { level: 1, name: 'Sign in to Spyglass' }).waitFor();
      expect(p.consoleErrors.join(' / ')).toBe('');
      expect(p.foreignRequests).toEqual([]);
    } finally {
      await p.close();
    }
  });
});
