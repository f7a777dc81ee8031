import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GOOD_PASSWORD,
  auditLogs,
  bootstrapKey,
  call,
  createKey,
  expectStatus,
  type AuditEntry,
  type CreatedKey,
} from '../helpers/auth.ts';
import { backends } from '../helpers/backends.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** The audit log (docs/auth.md#audit-log): what is recorded, by whom, masked, paged, and kept over a restart. */

/** Every e-mail-like string in `text` must be masked as `x***@domain`. */
function unmaskedEmails(text: string): string[] {
  return [...text.matchAll(/([^\s"@]*)@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g)]
    .filter((m) => !/^(?:user:)?[^@:]\*\*\*$/.test(m[1] ?? ''))
    .map((m) => m[0]);
}

describe('audit log', () => {
  let server: TestServer;
  let base: string;
  const boot = bootstrapKey();
  let actor: CreatedKey;
  const person = `audit.person.${randomUUID().slice(0, 6)}@example.com`;
  const emailsUsed = [person];

  beforeAll(async () => {
    server = await startTestServer({ SPYGLASS_API_KEYS: boot, SPYGLASS_RATE_LIMITS: 'off' });
    base = server.httpUrl;
    actor = await createKey(base, boot, { name: 'audit actor', role: 'admin' });
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it('records each action with its actor, and never a full e-mail address', async () => {
    const as = { key: actor.key };
    const me = `key:${actor.prefix}`;
    // api_key.created / api_key.revoked
    const victim = await createKey(base, actor.key, { name: 'audited', role: 'viewer' });
    expectStatus(await call(base, 'DELETE', `/api/auth/api-keys/${victim.id}`, as), 200, 'revoke');
    // project.created / project.deleted
    expectStatus(
      await call(base, 'POST', '/api/projects', {
        ...as,
        body: { id: 'audited-project', name: 'Audited' },
      }),
      201,
      'project',
    );
    expectStatus(
      await call(base, 'POST', '/api/projects', {
        ...as,
        body: { id: 'audited-kept', name: 'Kept' },
      }),
      201,
      'project kept',
    );
    expectStatus(
      await call(base, 'DELETE', '/api/projects/audited-project', as),
      204,
      'delete project',
    );
    // settings.updated
    expectStatus(
      await call(base, 'PUT', '/api/settings', { ...as, body: { redact_payloads: false } }),
      200,
      'settings',
    );
    // user.invited / (user.invite_accepted) / user.login / user.login_failed / user.role_changed / user.deactivated
    const inv = expectStatus(
      await call(base, 'POST', '/api/users/invite', {
        ...as,
        body: { email: person, role: 'viewer' },
      }),
      201,
      'invite',
    ).json;
    expectStatus(
      await call(base, 'POST', '/api/users/accept-invite', {
        ...as,
        body: { token: inv.invite_token, password: GOOD_PASSWORD },
      }),
      200,
      'accept',
    );
    expectStatus(
      await call(base, 'POST', '/api/users/verify', {
        ...as,
        body: { email: person, password: GOOD_PASSWORD },
      }),
      200,
      'login',
    );
    expectStatus(
      await call(base, 'POST', '/api/users/verify', {
        ...as,
        body: { email: person, password: 'not the password' },
      }),
      401,
      'failed login',
    );
    expectStatus(
      await call(base, 'PATCH', `/api/users/${inv.user.id}/role`, {
        ...as,
        body: { role: 'admin' },
      }),
      200,
      'role',
    );
    // A second active admin, so the first can be deactivated.
    const other = `other.admin.${randomUUID().slice(0, 6)}@example.com`;
    emailsUsed.push(other);
    const inv2 = expectStatus(
      await call(base, 'POST', '/api/users/invite', {
        ...as,
        body: { email: other, role: 'admin' },
      }),
      201,
      'invite 2',
    ).json;
    expectStatus(
      await call(base, 'POST', '/api/users/accept-invite', {
        ...as,
        body: { token: inv2.invite_token, password: GOOD_PASSWORD },
      }),
      200,
      'accept 2',
    );
    expectStatus(await call(base, 'DELETE', `/api/users/${inv.user.id}`, as), 200, 'deactivate');

    const res = expectStatus(
      await call(base, 'GET', '/api/audit/logs?limit=200', { key: boot }),
      200,
      'audit',
    );
    const entries = res.json as AuditEntry[];
    const find = (action: string, resource?: string) =>
      entries.find(
        (e) => e.action === action && (resource === undefined || e.resource === resource),
      );
    const maskedPerson = `${person[0]}***@example.com`;

    expect(find('api_key.created', `api_key:${victim.prefix}`)).toMatchObject({
      actor: me,
      result: 'success',
    });
    expect(find('api_key.revoked', `api_key:${victim.prefix}`)).toMatchObject({
      actor: me,
      result: 'success',
    });
    expect(find('project.created', 'project:audited-kept')).toMatchObject({ actor: me });
    // A project's own entries go with it; the record of its deletion is instance-wide and stays.
    expect(find('project.created', 'project:audited-project')).toBeUndefined();
    expect(find('project.deleted', 'project:audited-project')).toMatchObject({ actor: me });
    expect(find('settings.updated')).toMatchObject({
      actor: me,
      resource: 'settings:redact_payloads',
    });
    expect(find('user.invited', `user:${maskedPerson}`)).toMatchObject({ actor: me });
    expect(find('user.role_changed', `user:${inv.user.id} viewer->admin`)).toMatchObject({
      actor: me,
    });
    expect(find('user.deactivated', `user:${inv.user.id}`)).toMatchObject({ actor: me });
    expect(find('user.login', `user:${inv.user.id}`)).toMatchObject({
      actor: `user:${maskedPerson}`,
      result: 'success',
    });
    expect(find('user.login_failed', `user:${inv.user.id}`)).toMatchObject({
      actor: `user:${maskedPerson}`,
      result: 'failure',
    });

    for (const e of entries) {
      expect(e).toEqual({
        event_id: expect.any(String),
        timestamp: expect.any(String),
        actor: expect.any(String),
        action: expect.any(String),
        resource: expect.any(String),
        result: expect.stringMatching(/^(success|failure)$/),
      });
      expect(e.actor).not.toBe('');
    }
    for (const address of emailsUsed)
      expect(res.text.toLowerCase()).not.toContain(address.toLowerCase());
    expect(unmaskedEmails(res.text)).toEqual([]);
    // The bootstrap key's value never appears, only key prefixes.
    expect(res.text).not.toContain(boot);
    expect(res.text).not.toContain(actor.key);
  });

  it('pages with limit (default 50, max 200) and offset', async () => {
    // Failed logins for unknown addresses (no full address may leak from them), then settings
    // writes: cheap audit entries (each login attempt costs a password hash, ~0.3 s).
    for (let i = 0; i < 5; i++) {
      const address = `nobody.${i}.${randomUUID().slice(0, 4)}@example.org`;
      emailsUsed.push(address);
      expect(
        (
          await call(base, 'POST', '/api/users/verify', {
            key: boot,
            body: { email: address, password: 'x' },
          })
        ).status,
      ).toBe(401);
    }
    for (let i = 0; i < 55; i++)
      expectStatus(
        await call(base, 'PUT', '/api/settings', { key: boot, body: { redact_payloads: false } }),
        200,
        'settings',
      );
    const all = await auditLogs(base, boot, '?limit=200');
    expect(all.length).toBeGreaterThan(70);
    expect(all.length).toBeLessThanOrEqual(200);
    const sorted = [...all].sort((a, b) => b.timestamp.localeCompare(a.timestamp));
    expect(all.map((e) => e.timestamp)).toEqual(sorted.map((e) => e.timestamp)); // newest first

    expect(await auditLogs(base, boot)).toEqual(all.slice(0, 50));

    const pages: AuditEntry[] = [];
    for (let offset = 0; offset < all.length + 20; offset += 20)
      pages.push(...(await auditLogs(base, boot, `?limit=20&offset=${offset}`)));
    expect(pages.map((e) => e.event_id)).toEqual(all.map((e) => e.event_id));
    expect(await auditLogs(base, boot, `?offset=${all.length}`)).toEqual([]);

    for (const bad of ['limit=201', 'limit=0', 'limit=abc', 'offset=-1', 'offset=1.5']) {
      const r = await call(base, 'GET', `/api/audit/logs?${bad}`, { key: boot });
      expect(r.status, bad).toBe(422);
      expect(r.json.detail[0].loc[0]).toBe('query');
    }
    const text = (await call(base, 'GET', '/api/audit/logs?limit=200', { key: boot })).text;
    expect(unmaskedEmails(text)).toEqual([]);
  });
});

describe.each(backends)('$name', ({ name, available, env }) => {
  describe.runIf(available)(
    available
      ? 'audit log over a restart'
      : `audit log over a restart (skipped: no ${name} in this run)`,
    () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'spyglass-audit-restart-'));
      const servers: TestServer[] = [];
      afterAll(async () => {
        for (const s of servers) await s.dispose();
        rmSync(dataDir, { recursive: true, force: true });
      });

      it('keeps entries written just before a clean shutdown', async () => {
        const boot = bootstrapKey();
        // Same data dir (PGlite) or the same database (PostgreSQL) for both starts.
        const sameStore = {
          ...(await env()),
          SPYGLASS_DATA_DIR: dataDir,
          SPYGLASS_API_KEYS: boot,
          SPYGLASS_RATE_LIMITS: 'off',
        };
        const first = await startTestServer(sameStore);
        servers.push(first);
        const ids = Array.from({ length: 10 }, (_, i) => `last-words-${i}`);
        for (const id of ids)
          expectStatus(
            await call(first.httpUrl, 'POST', '/api/projects', {
              key: boot,
              body: { id, name: id },
            }),
            201,
            id,
          );
        // No pause: the entries are still queued (audit writes are batched every 200 ms) when stop() begins.
        await first.stop();

        const second = await startTestServer(sameStore);
        servers.push(second);
        const entries = await auditLogs(second.httpUrl, boot, '?limit=200');
        const created = entries
          .filter((e) => e.action === 'project.created')
          .map((e) => e.resource);
        expect(created.sort()).toEqual(ids.map((id) => `project:${id}`).sort());
      });
    },
  );
});
