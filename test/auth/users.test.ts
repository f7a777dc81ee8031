import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/auth/secrets.ts';
import { invites } from '../../src/store/schema.ts';
import { GOOD_PASSWORD, bootstrapKey, call, expectStatus } from '../helpers/auth.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';

/**
 * Users and invitations (docs/auth.md#users) through the REST API (in-process, app.inject()): invite → accept → verify, lockout, roles, and the
 * rule that there is always an active admin. Only one test here makes an active admin user, so
 * "the last admin" is well defined.
 */

describe('users', () => {
  let server: InProcessApp;
  let base: InProcessApp;
  const boot = bootstrapKey();

  const post = (path: string, body: unknown) => call(base, 'POST', path, { key: boot, body });
  const email = (tag: string) => `${tag}.${randomUUID().slice(0, 8)}@example.com`;

  async function invite(address: string, role: 'admin' | 'viewer') {
    const r = expectStatus(
      await post('/api/users/invite', { email: address, role }),
      201,
      `invite ${address}`,
    );
    return r.json as {
      user: { id: string; email: string; role: string; status: string };
      invite_token: string;
      expires_at: string;
    };
  }

  async function activeUser(role: 'admin' | 'viewer', tag: string = role) {
    const address = email(tag);
    const inv = await invite(address, role);
    expectStatus(
      await post('/api/users/accept-invite', { token: inv.invite_token, password: GOOD_PASSWORD }),
      200,
      'accept',
    );
    return { id: inv.user.id, email: address };
  }

  beforeAll(async () => {
    // Rate limits off: the lockout test alone sends more verifies than the 10/minute limit allows.
    server = await startInProcessApp({ SPYGLASS_API_KEYS: boot, SPYGLASS_RATE_LIMITS: 'off' });
    base = server;
  });
  afterAll(async () => {
    await server?.close();
  });

  describe('invitations', () => {
    it('returns the token once; it never appears in GET /api/users', async () => {
      const address = email('Invitee');
      const inv = await invite(address.toUpperCase(), 'viewer');
      expect(inv.invite_token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
      expect(inv.user).toMatchObject({
        email: address.toLowerCase(),
        role: 'viewer',
        status: 'invited',
      });
      expect(Date.parse(inv.expires_at)).toBeGreaterThan(Date.now());
      const list = expectStatus(await call(base, 'GET', '/api/users', { key: boot }), 200, 'list');
      expect(list.json.find((u: any) => u.id === inv.user.id)).toMatchObject({
        status: 'invited',
        last_login_at: null,
      });
      expect(list.text).not.toContain(inv.invite_token);
      expect(list.text).not.toMatch(/token|password|scrypt/i);
    });

    it('rejects a malformed e-mail (422) and an address that already has an active user (409)', async () => {
      expect(
        (await post('/api/users/invite', { email: 'not-an-address', role: 'viewer' })).status,
      ).toBe(422);
      expect((await post('/api/users/invite', { email: 'a@b.cc', role: 'owner' })).status).toBe(
        422,
      );
      const u = await activeUser('viewer', 'taken');
      expect((await post('/api/users/invite', { email: u.email, role: 'viewer' })).status).toBe(
        409,
      );
    });

    it('accept-invite: weak password → 422 (token still usable), then the password is set', async () => {
      const address = email('accepter');
      const inv = await invite(address, 'viewer');
      const weak = await post('/api/users/accept-invite', {
        token: inv.invite_token,
        password: 'short',
      });
      expect(weak.status).toBe(422);
      expect(weak.json.detail[0]).toMatchObject({ loc: ['body', 'password'] });
      const ok = await post('/api/users/accept-invite', {
        token: inv.invite_token,
        password: GOOD_PASSWORD,
      });
      expect(ok.status).toBe(200);
      expect(ok.json).toMatchObject({ id: inv.user.id, status: 'active' });
      const verify = await post('/api/users/verify', { email: address, password: GOOD_PASSWORD });
      expect(verify.status).toBe(200);
      expect(verify.json).toMatchObject({
        ok: true,
        user: { id: inv.user.id, email: address, status: 'active' },
      });
      expect(verify.json.user.last_login_at).toEqual(expect.any(String));
      expect(verify.text).not.toMatch(/scrypt|password_hash/);
    });

    it('accept-invite: a reused token → 400', async () => {
      const inv = await invite(email('reuse'), 'viewer');
      expect(
        (
          await post('/api/users/accept-invite', {
            token: inv.invite_token,
            password: GOOD_PASSWORD,
          })
        ).status,
      ).toBe(200);
      const again = await post('/api/users/accept-invite', {
        token: inv.invite_token,
        password: `${GOOD_PASSWORD}!`,
      });
      expect(again.status).toBe(400);
      expect(again.json).toEqual({ detail: expect.any(String) });
    });

    it('accept-invite: an expired token → 400; an unknown token → 400', async () => {
      const address = email('expired');
      const inv = await invite(address, 'viewer');
      // Invitations live 72 h; age this one in the real database rather than wait.
      await server.services.store.db
        .update(invites)
        .set({ expiresAt: new Date(Date.now() - 1_000) })
        .where(eq(invites.tokenHash, sha256(inv.invite_token)));
      expect(
        (
          await post('/api/users/accept-invite', {
            token: inv.invite_token,
            password: GOOD_PASSWORD,
          })
        ).status,
      ).toBe(400);
      expect(
        (await post('/api/users/accept-invite', { token: 'never-issued', password: GOOD_PASSWORD }))
          .status,
      ).toBe(400);
      expect(
        (await post('/api/users/verify', { email: address, password: GOOD_PASSWORD })).status,
      ).toBe(401);
    });
  });

  describe('verify', () => {
    it('locks the account after 5 wrong passwords: 423 even for the right one', async () => {
      const u = await activeUser('viewer', 'locked');
      const wrong: number[] = [];
      for (let i = 0; i < 5; i++)
        wrong.push(
          (await post('/api/users/verify', { email: u.email, password: `wrong password ${i}` }))
            .status,
        );
      expect(wrong).toEqual([401, 401, 401, 401, 401]);
      const right = await post('/api/users/verify', { email: u.email, password: GOOD_PASSWORD });
      expect(right.status).toBe(423);
      expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(right.json).toEqual({ detail: expect.stringMatching(/locked/) });
    });

    it('4 wrong passwords then the right one: ok, and the failure count starts again', async () => {
      const u = await activeUser('viewer', 'almost');
      for (let i = 0; i < 4; i++)
        expect(
          (await post('/api/users/verify', { email: u.email, password: 'wrong password!' })).status,
        ).toBe(401);
      expect(
        (await post('/api/users/verify', { email: u.email, password: GOOD_PASSWORD })).status,
      ).toBe(200);
      for (let i = 0; i < 4; i++)
        expect(
          (await post('/api/users/verify', { email: u.email, password: 'wrong password!' })).status,
        ).toBe(401);
      expect(
        (await post('/api/users/verify', { email: u.email, password: GOOD_PASSWORD })).status,
      ).toBe(200);
    });

    it('answers an unknown e-mail exactly like a wrong password', async () => {
      const unknown = await post('/api/users/verify', {
        email: email('nobody'),
        password: GOOD_PASSWORD,
      });
      const u = await activeUser('viewer', 'known');
      const wrong = await post('/api/users/verify', {
        email: u.email,
        password: 'wrong password!',
      });
      expect(unknown.status).toBe(401);
      expect(unknown.json).toEqual(wrong.json);
    });
  });

  describe('roles and deactivation', () => {
    it('PATCH role; the last active admin can be neither demoted nor deactivated (409)', async () => {
      const first = await activeUser('admin', 'first-admin');
      const role = (id: string, r: string) =>
        call(base, 'PATCH', `/api/users/${id}/role`, { key: boot, body: { role: r } });

      expect((await role(first.id, 'viewer')).status).toBe(409);
      expect((await call(base, 'DELETE', `/api/users/${first.id}`, { key: boot })).status).toBe(
        409,
      );
      // An invited (not yet active) admin does not count.
      await invite(email('pending-admin'), 'admin');
      expect((await role(first.id, 'viewer')).status).toBe(409);

      const second = await activeUser('viewer', 'promoted');
      const promoted = await role(second.id, 'admin');
      expect(promoted.status).toBe(200);
      expect(promoted.json).toMatchObject({ id: second.id, role: 'admin' });
      expect((await role(second.id, 'owner')).status).toBe(422);

      const demoted = await role(first.id, 'viewer');
      expect(demoted.status).toBe(200);
      expect(demoted.json.role).toBe('viewer');

      // Now `second` is the last active admin.
      expect((await role(second.id, 'viewer')).status).toBe(409);
      expect((await call(base, 'DELETE', `/api/users/${second.id}`, { key: boot })).status).toBe(
        409,
      );
      const users = (await call(base, 'GET', '/api/users', { key: boot })).json as any[];
      expect(
        users.filter((u) => u.role === 'admin' && u.status === 'active').map((u) => u.id),
      ).toEqual([second.id]);
      expect((await role(randomUUID(), 'viewer')).status).toBe(404);
    });

    it('DELETE deactivates the user: login refused, their keys revoked at once, other keys untouched', async () => {
      const u = await activeUser('viewer', 'leaver');
      // The API cannot bind a key to a user (POST /api/auth/api-keys has no user_id); the service can.
      const { key: userKey } = await server.services.keys.create({
        name: 'leaver key',
        role: 'viewer',
        projectId: null,
        expiresAt: null,
        userId: u.id,
        createdBy: 'test',
      });
      const otherKey = (await post('/api/auth/api-keys', { name: 'bystander', role: 'viewer' }))
        .json.key as string;
      expect((await call(base, 'GET', '/api/settings', { key: userKey })).status).toBe(200); // cached as valid now

      const del = await call(base, 'DELETE', `/api/users/${u.id}`, { key: boot });
      expect(del.status).toBe(200);
      expect(del.json).toMatchObject({ id: u.id, status: 'deactivated' });

      expect((await call(base, 'GET', '/api/settings', { key: userKey })).status).toBe(401);
      expect((await call(base, 'GET', '/api/settings', { key: otherKey })).status).toBe(200);
      expect(
        (await post('/api/users/verify', { email: u.email, password: GOOD_PASSWORD })).status,
      ).toBe(401);
      const listed = (await call(base, 'GET', '/api/users', { key: boot })).json as any[];
      expect(listed.find((x) => x.id === u.id)?.status).toBe('deactivated');
      // A deactivated user cannot be re-invited back in silently.
      expect((await post('/api/users/invite', { email: u.email, role: 'viewer' })).status).toBe(
        409,
      );
    });
  });
});
