import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  bootstrapKey,
  call,
  createKey,
  createProject,
  expectStatus,
  revokeKey,
} from '../helpers/auth.ts';
import { createPgDatabase } from '../helpers/backends.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { nativeSpan } from '../helpers/spans.ts';

/**
 * Two instances on one PostgreSQL database and one Redis: what one of them caches (instance
 * settings, model pricing, key verifications, known projects) follows a change made through the
 * other within a second, instead of after its cache period (10 s for keys, 60 s for pricing, never
 * for settings).
 */
const redisUrl = inject('redisUrl');
const pgAdminUrl = inject('pgAdminUrl');
const WITHIN_MS = 1000;

async function until(what: string, check: () => Promise<boolean>, ms = WITHIN_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.runIf(redisUrl !== null && pgAdminUrl !== null)(
  'cache invalidation across instances',
  () => {
    const admin = bootstrapKey();
    let a: TestServer;
    let b: TestServer;
    let sql: postgres.Sql;

    beforeAll(async () => {
      const databaseUrl = await createPgDatabase();
      sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
      const env = {
        SPYGLASS_DATABASE_URL: databaseUrl,
        SPYGLASS_REDIS_URL: redisUrl!,
        SPYGLASS_CLUSTER_NAME: `t-${randomUUID()}`,
        SPYGLASS_API_KEYS: admin,
        SPYGLASS_RATE_LIMITS: 'off',
      };
      a = await startTestServer(env); // first alone: it migrates the database
      b = await startTestServer(env);
    });
    afterAll(async () => {
      await Promise.all([a?.dispose(), b?.dispose()]);
      await sql?.end({ timeout: 5 });
    });

    it('turning redaction on through A redacts the next span stored through B', async () => {
      await until(
        'B applies a change made on A',
        async () => {
          // Toggled until B follows, since B's subscription may still be connecting right after start.
          expectStatus(
            await call(a.httpUrl, 'PUT', '/api/settings', {
              key: admin,
              body: { redact_payloads: true },
            }),
            200,
            'settings',
          );
          return (
            (await call(b.httpUrl, 'GET', '/api/settings', { key: admin })).json.redact_payloads ===
            true
          );
        },
        5000,
      );
      expectStatus(
        await call(a.httpUrl, 'PUT', '/api/settings', {
          key: admin,
          body: { redact_payloads: false },
        }),
        200,
        'settings off',
      );
      await until(
        'B sees redaction off',
        async () =>
          (await call(b.httpUrl, 'GET', '/api/settings', { key: admin })).json.redact_payloads ===
          false,
      );

      expectStatus(
        await call(a.httpUrl, 'PUT', '/api/settings', {
          key: admin,
          body: { redact_payloads: true },
        }),
        200,
        'settings on',
      );
      const session = `redact-${randomUUID()}`;
      await until('B stores a span redacted', async () => {
        expectStatus(
          await call(b.httpUrl, 'POST', '/api/traces/spans', {
            key: admin,
            body: [nativeSpan({ session_id: session, input_args: { secret: 'x' } })],
          }),
          202,
          'ingest on B',
        );
        const rows = await sql`select input_args from spans where session_id = ${session}`;
        return rows.some((r) => r.input_args === null);
      });
      await call(a.httpUrl, 'PUT', '/api/settings', {
        key: admin,
        body: { redact_payloads: false },
      });
    });

    it('a model price added through A is listed and applied by B', async () => {
      const model = `m-${randomUUID().slice(0, 8)}`;
      expectStatus(
        await call(a.httpUrl, 'POST', '/api/costs/models', {
          key: admin,
          body: { model_id: model, input_per_1m_usd: 1, output_per_1m_usd: 2 },
        }),
        201,
        'price',
      );
      await until('B lists the new price', async () => {
        const models = (await call(b.httpUrl, 'GET', '/api/costs/models', { key: admin })).json as {
          model_id: string;
          input_per_1m_usd: number;
        }[];
        return models.some((m) => m.model_id === model && m.input_per_1m_usd === 1);
      });
    });

    it('a key revoked through A is refused by B, which had it cached', async () => {
      const key = await createKey(a.httpUrl, admin, { role: 'viewer' });
      expect((await call(b.httpUrl, 'GET', '/api/settings', { key: key.key })).status).toBe(200);
      await revokeKey(a.httpUrl, admin, key.id);
      await until(
        'B refuses the revoked key',
        async () =>
          (await call(b.httpUrl, 'GET', '/api/settings', { key: key.key })).status === 401,
      );
    });

    it('a project deleted through A stops taking spans on B', async () => {
      const project = `p-${randomUUID().slice(0, 8)}`;
      await createProject(a.httpUrl, admin, project);
      const span = () =>
        call(b.httpUrl, 'POST', '/api/traces/spans', {
          key: admin,
          body: [nativeSpan({ project_id: project })],
        });
      expect((await span()).status).toBe(202);
      expectStatus(
        await call(a.httpUrl, 'DELETE', `/api/projects/${project}`, { key: admin }),
        204,
        'delete project',
      );
      await until(
        'B refuses spans for the deleted project',
        async () => (await span()).status === 404,
      );
    });
  },
);
