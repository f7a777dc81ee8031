import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { insertAuditRows, listAudit, type AuditRow } from '../../../src/store/audit-repo.ts';
import {
  findKey,
  findKeyByHash,
  hasActiveKeys,
  insertKey,
  listKeys,
  revokeKey,
  revokeUserKeys,
  touchKey,
  unusableKeyIds,
} from '../../../src/store/keys-repo.ts';
import {
  deleteProjectCascade,
  findProject,
  insertProject,
  listProjects,
  updateProject,
} from '../../../src/store/projects-repo.ts';
import { readSettings, writeSetting } from '../../../src/store/settings-repo.ts';
import {
  deleteExpiredUiSessions,
  deleteUiSession,
  deleteUserUiSessions,
  extendUiSession,
  findLiveUiSession,
  insertUiSession,
} from '../../../src/store/ui-sessions-repo.ts';
import {
  countActiveAdmins,
  findOpenInvite,
  findUser,
  findUserByEmail,
  insertInvite,
  insertUser,
  listUsers,
  markInviteAccepted,
  updateUser,
} from '../../../src/store/users-repo.ts';
import { backends } from '../../helpers/backends.ts';
import { HOSTILE, project, useRepoStore } from '../../helpers/repo-store.ts';

const HOUR = 3_600_000;
const later = (ms: number) => new Date(Date.now() + ms);

function key(over: Partial<Parameters<typeof insertKey>[1]> = {}) {
  return {
    id: randomUUID(),
    name: 'ci',
    prefix: 'sg_abcd',
    keyHash: randomUUID(),
    role: 'viewer',
    projectId: null,
    ...over,
  };
}

function audit(projectId: string | null, timestamp: Date, over: Partial<AuditRow> = {}): AuditRow {
  return {
    eventId: randomUUID(),
    timestamp,
    actor: 'admin',
    action: 'key.create',
    resource: 'key:1',
    result: 'success',
    projectId,
    ...over,
  };
}

/** Keys, users, invites, dashboard sign-ins, the audit log, projects and settings on each driver. */
describe.each(backends)('$name', ({ name, available }) => {
  describe.runIf(available)(available ? 'account repositories' : `skipped: no ${name}`, () => {
    const db = useRepoStore(name);

    it('knows no usable key until one is stored, and none once it is revoked or expired', async () => {
      expect(await hasActiveKeys(db())).toBe(false);
      const expired = await insertKey(db(), key({ expiresAt: later(-HOUR) }));
      expect(await hasActiveKeys(db())).toBe(false);
      const k = await insertKey(db(), key());
      expect(await hasActiveKeys(db())).toBe(true);
      expect(await revokeKey(db(), k.id)).toBe(true);
      expect(await revokeKey(db(), k.id)).toBe(false);
      expect(await hasActiveKeys(db())).toBe(false);
      expect(await unusableKeyIds(db(), [k.id, expired.id, 'deleted'])).toEqual([
        k.id,
        expired.id,
        'deleted',
      ]);
    });

    it('stores keys by hash, lists them newest first per project, and revokes a user’s keys', async () => {
      const p = project();
      const a = await insertKey(
        db(),
        key({ projectId: p, name: HOSTILE.replaceAll('\u0000', '') }),
      );
      const b = await insertKey(db(), key({ projectId: p, userId: 'u1', expiresAt: later(HOUR) }));
      await insertKey(db(), key({ projectId: project() }));
      expect(await findKeyByHash(db(), a.keyHash)).toEqual(a);
      expect(await findKey(db(), b.id)).toEqual(b);
      expect(await findKey(db(), 'nope')).toBeUndefined();
      const listed = await listKeys(db(), p);
      expect(listed.map((k) => k.id).sort()).toEqual([a.id, b.id].sort());
      expect(listed[0]!.createdAt.getTime()).toBeGreaterThanOrEqual(listed[1]!.createdAt.getTime());
      expect(await unusableKeyIds(db(), [a.id, b.id])).toEqual([]);
      await touchKey(db(), a.id);
      expect((await findKey(db(), a.id))?.lastUsedAt).toBeInstanceOf(Date);
      expect(await revokeUserKeys(db(), 'u1')).toEqual([{ id: b.id, hash: b.keyHash }]);
      expect(await revokeUserKeys(db(), 'u1')).toEqual([]);
      await expect(insertKey(db(), key({ keyHash: a.keyHash }))).rejects.toThrow();
    });

    it('stores users with a unique email, updates them and counts active admins', async () => {
      const admins = await countActiveAdmins(db());
      const email = `${randomUUID()}@example.com`;
      const u = await insertUser(db(), {
        id: randomUUID(),
        email,
        role: 'admin',
        status: 'active',
        passwordHash: 'h',
      });
      expect(await countActiveAdmins(db())).toBe(admins + 1);
      expect(await findUserByEmail(db(), email)).toEqual(u);
      await expect(
        insertUser(db(), { id: randomUUID(), email, role: 'viewer', status: 'invited' }),
      ).rejects.toThrow();
      const changed = await updateUser(db(), u.id, {
        status: 'deactivated',
        failedLogins: 3,
        lockedUntil: later(HOUR),
      });
      expect(changed).toMatchObject({ status: 'deactivated', failedLogins: 3 });
      expect(await countActiveAdmins(db())).toBe(admins);
      expect(await updateUser(db(), 'nobody', { role: 'admin' })).toBeUndefined();
      expect(await findUser(db(), u.id)).toEqual(changed);
      expect((await listUsers(db())).map((x) => x.id)).toContain(u.id);
    });

    it('accepts an open invite once; an expired one is not found', async () => {
      const id = randomUUID();
      const token = randomUUID();
      await insertInvite(db(), { id, userId: 'u', tokenHash: token, expiresAt: later(HOUR) });
      await insertInvite(db(), {
        id: randomUUID(),
        userId: 'u',
        tokenHash: 'old',
        expiresAt: later(-1000),
      });
      expect((await findOpenInvite(db(), token))?.id).toBe(id);
      expect(await findOpenInvite(db(), 'old')).toBeUndefined();
      expect(await markInviteAccepted(db(), id)).toBe(true);
      expect(await markInviteAccepted(db(), id)).toBe(false);
      expect(await findOpenInvite(db(), token)).toBeUndefined();
    });

    it('keeps a dashboard sign-in until its expiry, slides it no further than the absolute one', async () => {
      const token = randomUUID();
      const absolute = later(2 * HOUR);
      await insertUiSession(db(), {
        tokenHash: token,
        userId: 'u2',
        expiresAt: later(HOUR),
        absoluteExpiresAt: absolute,
      });
      await extendUiSession(db(), token, later(10 * HOUR));
      expect((await findLiveUiSession(db(), token))?.expiresAt).toEqual(absolute);
      await insertUiSession(db(), {
        tokenHash: 'gone',
        keyHash: 'k',
        expiresAt: later(-1000),
        absoluteExpiresAt: later(HOUR),
      });
      expect(await findLiveUiSession(db(), 'gone')).toBeUndefined();
      await deleteExpiredUiSessions(db());
      expect(await deleteUiSession(db(), 'gone')).toBeUndefined();
      expect((await deleteUiSession(db(), token))?.userId).toBe('u2');
      expect(await findLiveUiSession(db(), token)).toBeUndefined();
      await insertUiSession(db(), {
        tokenHash: 'u3-a',
        userId: 'u3',
        expiresAt: later(HOUR),
        absoluteExpiresAt: later(HOUR),
      });
      await deleteUserUiSessions(db(), 'u3');
      expect(await findLiveUiSession(db(), 'u3-a')).toBeUndefined();
    });

    it('pages and filters the audit log per project, a replayed entry kept once', async () => {
      const p = project();
      const t = Date.now() - HOUR;
      const rows = [0, 1, 2, 3].map((i) =>
        audit(p, new Date(t + i * 1000), {
          action: i % 2 ? 'key.revoke' : 'key.create',
          resource: i === 3 ? 'project:a_b%' : `key:${i}`,
        }),
      );
      await insertAuditRows(db(), rows);
      await insertAuditRows(db(), [rows[0]!, audit(project(), new Date(t))]);
      const list = (f: object) => listAudit(db(), { projectId: p, limit: 10, offset: 0, ...f });
      expect((await list({})).map((r) => r.eventId)).toEqual(rows.map((r) => r.eventId).reverse());
      expect((await list({ limit: 2, offset: 2 })).map((r) => r.eventId)).toEqual([
        rows[1]!.eventId,
        rows[0]!.eventId,
      ]);
      expect(await list({ action: 'key.revoke' })).toHaveLength(2);
      expect((await list({ resourcePrefix: 'project:a_b%' })).map((r) => r.eventId)).toEqual([
        rows[3]!.eventId,
      ]);
      expect(await list({ resourcePrefix: 'project:a_' + 'bc' })).toEqual([]);
      expect(await list({ since: new Date(t + 1000), until: new Date(t + 3000) })).toHaveLength(2);
      expect(await list({ actor: 'someone', result: 'failure' })).toEqual([]);
    });

    it('creates, renames and deletes projects, everything of a deleted project gone with it', async () => {
      const id = project();
      const created = await insertProject(db(), {
        id,
        name: HOSTILE.replaceAll('\u0000', ''),
        settings: { retention: 7 },
      });
      expect(created).toMatchObject({ id, settings: { retention: 7 } });
      expect(await insertProject(db(), { id, name: 'again', settings: {} })).toBeUndefined();
      expect(await updateProject(db(), id, { name: 'Renamed' })).toMatchObject({
        name: 'Renamed',
        settings: { retention: 7 },
      });
      expect(await updateProject(db(), 'absent', { name: 'x' })).toBeUndefined();
      expect(await listProjects(db(), id)).toHaveLength(1);
      expect((await listProjects(db(), null)).map((x) => x.id)).toContain(id);
      const k = await insertKey(db(), key({ projectId: id }));
      await insertAuditRows(db(), [audit(id, new Date())]);
      expect(await deleteProjectCascade(db(), id)).toBe(true);
      expect(await deleteProjectCascade(db(), id)).toBe(false);
      expect(await findProject(db(), id)).toBeUndefined();
      expect(await findKey(db(), k.id)).toBeUndefined();
      expect(await listAudit(db(), { projectId: id, limit: 10, offset: 0 })).toEqual([]);
      // the same id made again starts empty
      await insertProject(db(), { id, name: 'new', settings: {} });
      expect(await listKeys(db(), id)).toEqual([]);
    });

    it('writes settings and replaces a key’s value', async () => {
      const k = `test.${randomUUID()}`;
      await writeSetting(db(), k, { a: 1 });
      await writeSetting(db(), k, [HOSTILE.replaceAll('\u0000', '').replace('\uD800', '')]);
      expect((await readSettings(db()))[k]).toEqual([
        HOSTILE.replaceAll('\u0000', '').replace('\uD800', ''),
      ]);
    });
  });
});
