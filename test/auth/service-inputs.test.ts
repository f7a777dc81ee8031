import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_ADMIN } from '../../src/auth/principal.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { issuesOf } from '../helpers/issues.ts';

/**
 * UsersService and KeyAdmin take typed inputs (a role as text, an expiry as a Date or a number of
 * days) and check the values themselves, for every adapter; called here directly.
 */
describe('UsersService and KeyAdmin check their domain inputs', () => {
  let app: InProcessApp;
  const badRole = {
    loc: ['body', 'role'],
    msg: "Input should be 'admin' or 'viewer'",
    type: 'enum',
  };

  beforeAll(async () => {
    app = await startInProcessApp();
  }, 120_000);
  afterAll(async () => app?.close());

  it('refuses a role outside ROLES when inviting and when changing a role', async () => {
    const users = app.services.users;
    expect(await issuesOf(users.invite(LOCAL_ADMIN, 'ada@example.com', 'owner'))).toEqual([
      badRole,
    ]);
    const { user } = await users.invite(LOCAL_ADMIN, 'ada@example.com', 'admin');
    expect(await issuesOf(users.changeRole(LOCAL_ADMIN, user.id, 'owner'))).toEqual([badRole]);
    expect((await users.changeRole(LOCAL_ADMIN, user.id, 'viewer')).role).toBe('viewer');
  });

  it('refuses a blank name, a bad role and an expiry out of range, all at once', async () => {
    const keys = app.services.keyAdmin;
    const issues = await issuesOf(
      keys.create(LOCAL_ADMIN, { name: ' ', role: 'owner', expiresInDays: 0 }),
    );
    expect(issues).toEqual([
      { loc: ['body', 'name'], msg: 'Field required', type: 'missing' },
      badRole,
      expect.objectContaining({ loc: ['body', 'expires_in_days'], type: 'number_range' }),
    ]);
    for (const expiresInDays of [NaN, -1, 36_501])
      expect(await issuesOf(keys.create(LOCAL_ADMIN, { name: 'k', expiresInDays }))).toEqual([
        expect.objectContaining({ loc: ['body', 'expires_in_days'] }),
      ]);
    expect(
      await issuesOf(keys.create(LOCAL_ADMIN, { name: 'k', expiresAt: new Date('not a date') })),
    ).toEqual([expect.objectContaining({ loc: ['body', 'expires_at'], type: 'datetime_parsing' })]);
    const { apiKey } = await keys.create(LOCAL_ADMIN, { name: ' ci ', expiresInDays: 1.5 });
    expect(apiKey).toMatchObject({ name: 'ci', role: 'viewer', projectId: null });
    expect(apiKey.expiresAt!.getTime() - Date.now()).toBeGreaterThan(86_400_000);
  });
});
