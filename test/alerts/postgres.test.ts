import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/auth.ts';
import { createMigratedPgDatabase, pgAdminUrl } from '../helpers/backends.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fireInput } from './helpers.ts';

const MIN = 60_000;

/**
 * The inbox, snoozes and retention on PostgreSQL: postgres.js binds parameters by type, so a time
 * compared in raw SQL must be sent typed (PGlite accepted what postgres.js refused, and the snooze
 * waker and retention failed on every run of a PostgreSQL deployment).
 */
describe.skipIf(pgAdminUrl === null)('alerts on PostgreSQL', () => {
  let server: TestServer;
  const base = Date.now();
  let offset = 0;

  beforeAll(async () => {
    server = await startTestServer({ SPYGLASS_DATABASE_URL: await createMigratedPgDatabase() });
    server.services.alerts.now = () => new Date(base + offset);
  }, 120_000);
  afterAll(async () => server?.dispose());

  it('lists, pages, snoozes, wakes and prunes alerts', async () => {
    const a = await server.services.alerts.fire(
      fireInput({ dedupKey: 'mcp_down:a', serverName: 'a' }),
    );
    offset += 1000;
    await server.services.alerts.fire(fireInput({ dedupKey: 'mcp_down:b', serverName: 'b' }));
    const page1 = await call(server.httpUrl, 'GET', '/api/alerts/inbox?limit=1');
    expect(page1.status).toBe(200);
    expect(page1.json).toHaveLength(1);

    expect(
      (await call(server.httpUrl, 'POST', `/api/alerts/${a?.id}/snooze`, { body: { minutes: 15 } }))
        .status,
    ).toBe(200);
    const snoozed = (await call(server.httpUrl, 'GET', '/api/alerts/inbox?status=snoozed')).json;
    expect(snoozed.map((x: any) => x.id)).toEqual([a?.id]);

    offset += 16 * MIN;
    expect(await server.services.alerts.wake()).toBe(1);
    const firing = (await call(server.httpUrl, 'GET', '/api/alerts/inbox?status=firing')).json;
    expect(firing.map((x: any) => x.id)).toContain(a?.id);

    expect(
      (await call(server.httpUrl, 'POST', `/api/alerts/${a?.id}/resolve`, { body: {} })).status,
    ).toBe(200);
    offset += 91 * 24 * 60 * MIN;
    expect(await server.services.alerts.prune(90)).toBe(1);
  });
});
