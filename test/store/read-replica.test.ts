import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, pgAdminUrl } from '../helpers/backends.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getJson, nativeSpan, postJson } from '../helpers/spans.ts';

/**
 * SPYGLASS_DATABASE_READ_URL: the "replica" is a role on the same database whose transactions are
 * read-only (default_transaction_read_only=on), so any write sent through it would fail. Which
 * pool served a read shows in pg_stat_activity: the read pool's connections are named spyglass-read.
 */
describe.runIf(pgAdminUrl !== null)('read replica', () => {
  let server: TestServer;
  let admin: import('postgres').Sql;
  const role = `spyglass_ro_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    const url = await createPgDatabase();
    const { default: postgres } = await import('postgres');
    admin = postgres(url, { max: 1, onnotice: () => {} });
    await admin.unsafe(
      `create role ${role} login password 'ro' ; alter role ${role} set default_transaction_read_only = on`,
    );
    // Tables the server's migrations create next (as the admin) are readable by the role.
    await admin.unsafe(
      `alter default privileges in schema public grant select on tables to ${role}; grant usage on schema public to ${role}`,
    );
    const readUrl = new URL(url);
    readUrl.username = role;
    readUrl.password = 'ro';
    server = await startTestServer({
      SPYGLASS_DATABASE_URL: url,
      SPYGLASS_DATABASE_READ_URL: readUrl.toString(),
      SPYGLASS_RATE_LIMITS: 'off',
    });
  }, 120_000);
  afterAll(async () => {
    await server?.dispose();
    await admin?.end({ timeout: 5 });
  });

  /** The last statement each read-pool connection ran. */
  async function readPoolQueries(): Promise<string[]> {
    const rows = await admin<
      { query: string }[]
    >`select query from pg_stat_activity where application_name = 'spyglass-read' and usename = ${role}`;
    return rows.map((r) => r.query);
  }

  it('writes through the primary and serves GET routes and GraphQL queries from the read pool', async () => {
    const spans = Array.from({ length: 3 }, () => nativeSpan({ trace_id: 'replica-t' }));
    expect((await postJson(`${server.httpUrl}/api/traces/spans`, spans)).status).toBe(202);

    const listed = await getJson(`${server.httpUrl}/api/traces/spans?trace_id=replica-t`);
    expect(listed.status).toBe(200);
    expect(listed.json).toHaveLength(3);
    expect(
      (await readPoolQueries()).some((q) => /from "spans"/i.test(q) && q.includes('trace_id')),
    ).toBe(true);

    const gql = await postJson(`${server.httpUrl}/graphql`, {
      query: '{ spans(filter: { traceId: "replica-t" }) { edges { node { spanId } } } }',
    });
    expect(gql.status).toBe(200);
    expect(gql.json.data.spans.edges).toHaveLength(3);

    // Ingest after the reads still goes to the primary (the read role could not write it).
    expect(
      (
        await postJson(`${server.httpUrl}/api/traces/spans`, [
          nativeSpan({ trace_id: 'replica-t' }),
        ])
      ).status,
    ).toBe(202);
    expect(
      (await getJson(`${server.httpUrl}/api/traces/spans?trace_id=replica-t`)).json,
    ).toHaveLength(4);
    expect((await getJson(`${server.httpUrl}/api/readiness`)).status).toBe(200);
  });

  it('a read route that also records state (GET /api/slos/status) writes it through the primary', async () => {
    expect(
      (
        await postJson(`${server.httpUrl}/api/slos`, {
          agent_name: 'planner',
          metric: 'success_rate',
          threshold: 99,
        })
      ).status,
    ).toBe(201);
    const status = await getJson(`${server.httpUrl}/api/slos/status`);
    expect(status.status).toBe(200);
    expect(status.json).toHaveLength(1);
    const gql = await postJson(`${server.httpUrl}/graphql`, {
      query: '{ sloStatus { sloId status } }',
    });
    expect(gql.json.errors).toBeUndefined();
    const [row] = await admin<
      { n: number }[]
    >`select count(*)::int as n from slo_states where evaluated_at is not null`;
    expect(row?.n).toBe(1);
  });
});
