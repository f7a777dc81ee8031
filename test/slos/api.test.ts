import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../../src/store/db.ts';
import { bootstrapKey, call, createProject, expectStatus, twoProjects } from '../helpers/auth.ts';
import { runCliInProcess } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { nativeSpan } from '../helpers/spans.ts';

/** SLO definitions over REST and GraphQL: validation, roles, project isolation, limits. */

const A = 'slo-a';
const B = 'slo-b';
let server: TestServer;
let base: string;
const boot = bootstrapKey();
let adminA: string;
let viewerA: string;
let adminB: string;

beforeAll(async () => {
  server = await startTestServer({ SPYGLASS_API_KEYS: boot, SPYGLASS_RATE_LIMITS: 'off' });
  base = server.httpUrl;
  ({ admin: adminA, viewer: viewerA, otherAdmin: adminB } = await twoProjects(base, boot, A, B));
});
afterAll(async () => server?.dispose());

const VALID = { agent_name: 'planner', metric: 'success_rate', threshold: 99 };
const post = (key: string, body: unknown) => call(base, 'POST', '/api/slos', { key, body });
const gql = async (key: string, query: string, variables: Record<string, unknown> = {}) =>
  (await call(base, 'POST', '/graphql', { key, body: { query, variables } })).json;

describe('SLO definitions over REST', () => {
  it('creates, lists, patches and deletes an SLO', async () => {
    const created = expectStatus(
      await post(adminA, { ...VALID, window_hours: 48 }),
      201,
      'create',
    ).json;
    expect(created).toEqual({
      slo_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      project_id: A,
      agent_name: 'planner',
      metric: 'success_rate',
      threshold: 99,
      window_hours: 48,
      created_at: expect.any(String),
      updated_at: created.created_at,
    });
    expect(
      expectStatus(await call(base, 'GET', '/api/slos', { key: viewerA }), 200, 'list').json,
    ).toEqual([created]);

    const patched = expectStatus(
      await call(base, 'PATCH', `/api/slos/${created.slo_id}`, {
        key: adminA,
        body: { threshold: 0.9 },
      }),
      200,
      'patch',
    ).json;
    expect(patched).toMatchObject({
      slo_id: created.slo_id,
      threshold: 90,
      window_hours: 48,
      metric: 'success_rate',
      agent_name: 'planner',
    });
    const switched = expectStatus(
      await call(base, 'PATCH', `/api/slos/${created.slo_id}`, {
        key: adminA,
        body: { metric: 'latency_p99', threshold: 0.5 },
      }),
      200,
      'metric',
    ).json;
    // Milliseconds are taken as given: 0.5 ms, not 50.
    expect(switched).toMatchObject({ metric: 'latency_p99', threshold: 0.5, window_hours: 48 });

    expectStatus(
      await call(base, 'DELETE', `/api/slos/${created.slo_id}`, { key: adminA }),
      204,
      'delete',
    );
    expect(
      expectStatus(await call(base, 'GET', '/api/slos', { key: adminA }), 200, 'list').json,
    ).toEqual([]);
    expectStatus(
      await call(base, 'DELETE', `/api/slos/${created.slo_id}`, { key: adminA }),
      404,
      'deleted twice',
    );
    expectStatus(
      await call(base, 'PATCH', '/api/slos/not-a-uuid', { key: adminA, body: { threshold: 50 } }),
      404,
      'not a uuid',
    );
  });

  it('reads a success_rate threshold in (0, 1] as a fraction: 0.95 is 95, 1 is 100', async () => {
    for (const [given, stored] of [
      [0.95, 95],
      [1, 100],
      [0.955, 95.5],
      [1.5, 1.5],
      [100, 100],
    ]) {
      const r = expectStatus(
        await post(adminA, { ...VALID, agent_name: 'fractions', threshold: given }),
        201,
        `threshold ${given}`,
      );
      expect(r.json.threshold).toBe(stored);
      expect(r.json.window_hours).toBe(24);
    }
  });

  it('answers 422 naming the field for every bad input', async () => {
    const cases: [unknown, (string | number)[]][] = [
      [{ ...VALID, threshold: 0 }, ['body', 'threshold']],
      [{ ...VALID, threshold: -1 }, ['body', 'threshold']],
      [{ ...VALID, threshold: 101 }, ['body', 'threshold']],
      [{ ...VALID, threshold: 'x' }, ['body', 'threshold']],
      [{ ...VALID, threshold: null }, ['body', 'threshold']],
      [{ ...VALID, metric: 'latency_p99', threshold: 0 }, ['body', 'threshold']],
      [{ ...VALID, metric: 'latency_p99', threshold: -5 }, ['body', 'threshold']],
      [{ ...VALID, metric: 'p50' }, ['body', 'metric']],
      [{ ...VALID, metric: 7 }, ['body', 'metric']],
      [{ ...VALID, window_hours: 0 }, ['body', 'window_hours']],
      [{ ...VALID, window_hours: 721 }, ['body', 'window_hours']],
      [{ ...VALID, window_hours: 1.5 }, ['body', 'window_hours']],
      [{ ...VALID, window_hours: '24' }, ['body', 'window_hours']],
      [{ ...VALID, agent_name: '' }, ['body', 'agent_name']],
      [{ ...VALID, agent_name: '   ' }, ['body', 'agent_name']],
      [{ ...VALID, agent_name: 'x'.repeat(201) }, ['body', 'agent_name']],
      [{ ...VALID, agent_name: 42 }, ['body', 'agent_name']],
      [{ metric: 'success_rate', threshold: 99 }, ['body', 'agent_name']],
      [{ agent_name: 'planner', threshold: 99 }, ['body', 'metric']],
      [{ agent_name: 'planner', metric: 'success_rate' }, ['body', 'threshold']],
      [{ ...VALID, colour: 'blue' }, ['body', 'colour']],
      [{ ...VALID, slo_id: '00000000-0000-4000-8000-000000000000' }, ['body', 'slo_id']],
      [[VALID], ['body']],
      ['"a string"', ['body']],
      ['5', ['body']],
      ['null', ['body']],
    ];
    const wrong: string[] = [];
    for (const [body, loc] of cases) {
      const r = await post(adminA, body);
      const locs = Array.isArray(r.json?.detail)
        ? r.json.detail.map((d: { loc: unknown }) => JSON.stringify(d.loc))
        : [];
      if (r.status !== 422 || !locs.includes(JSON.stringify(loc)))
        wrong.push(`${JSON.stringify(body)}: ${r.status} ${r.text}`);
    }
    expect(wrong).toEqual([]);
    // A body naming another project than the query (a global key may name either) is refused.
    const mismatch = await call(base, 'POST', `/api/slos?project_id=${A}`, {
      key: boot,
      body: { ...VALID, project_id: B },
    });
    expect([mismatch.status, mismatch.json.detail[0].loc]).toEqual([422, ['body', 'project_id']]);
    // Nothing of the rejected bodies was stored.
    expect(
      (await call(base, 'GET', '/api/slos', { key: adminA })).json.filter(
        (s: { agent_name: string }) => s.agent_name !== 'fractions',
      ),
    ).toEqual([]);
  });

  it('checks a PATCH against the stored SLO', async () => {
    const { slo_id } = expectStatus(
      await post(adminA, { ...VALID, agent_name: 'patchy' }),
      201,
      'create',
    ).json;
    const patch = (body: unknown) =>
      call(base, 'PATCH', `/api/slos/${slo_id}`, { key: adminA, body });
    for (const [body, field] of [
      [{ metric: 'latency_p99' }, 'threshold'], // ms or % depends on the metric: it must be restated
      [{ threshold: 150 }, 'threshold'],
      [{ window_hours: 0 }, 'window_hours'],
      [{ agent_name: null }, 'agent_name'],
      [{ project_id: B }, 'project_id'],
      [{ created_at: '2020-01-01T00:00:00Z' }, 'created_at'],
    ] as const) {
      const r = await patch(body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.json.detail[0].loc).toEqual(['body', field]);
    }
    expect(expectStatus(await patch({}), 200, 'empty patch').json).toMatchObject({
      threshold: 99,
      window_hours: 24,
    });
    expect(
      expectStatus(await patch({ window_hours: 720, agent_name: 'patched' }), 200, 'window').json,
    ).toMatchObject({ threshold: 99, window_hours: 720, agent_name: 'patched' });
  });

  it('lets viewers read but not write', async () => {
    const { slo_id } = expectStatus(
      await post(adminA, { ...VALID, agent_name: 'viewer-test' }),
      201,
      'create',
    ).json;
    expectStatus(await post(viewerA, VALID), 403, 'viewer create');
    expectStatus(
      await call(base, 'PATCH', `/api/slos/${slo_id}`, { key: viewerA, body: { threshold: 50 } }),
      403,
      'viewer patch',
    );
    expectStatus(
      await call(base, 'DELETE', `/api/slos/${slo_id}`, { key: viewerA }),
      403,
      'viewer delete',
    );
    expectStatus(await call(base, 'GET', '/api/slos', { key: viewerA }), 200, 'viewer list');
    expectStatus(
      await call(base, 'GET', '/api/slos/status', { key: viewerA }),
      200,
      'viewer status',
    );
    expect(
      (await gql(viewerA, 'mutation { deleteSlo(sloId: "' + slo_id + '") }')).errors[0].extensions
        .status,
    ).toBe(403);
  });

  it('keeps projects apart: another project sees, changes and evaluates none of them', async () => {
    const { slo_id } = expectStatus(
      await post(adminA, { ...VALID, agent_name: 'isolated' }),
      201,
      'create',
    ).json;
    const inB = expectStatus(
      await post(adminB, { ...VALID, agent_name: 'isolated' }),
      201,
      'create in B',
    ).json;
    expect(inB.project_id).toBe(B);
    expect(
      expectStatus(await call(base, 'GET', '/api/slos', { key: adminB }), 200, 'list B').json,
    ).toEqual([inB]);
    expect(
      (await call(base, 'GET', '/api/slos/status', { key: adminB })).json.map(
        (i: { slo_id: string }) => i.slo_id,
      ),
    ).toEqual([inB.slo_id]);
    expectStatus(
      await call(base, 'PATCH', `/api/slos/${slo_id}`, { key: adminB, body: { threshold: 1 } }),
      404,
      'patch from B',
    );
    expectStatus(
      await call(base, 'DELETE', `/api/slos/${slo_id}`, { key: adminB }),
      404,
      'delete from B',
    );
    // A global key addresses a project by name, and the same rules apply.
    expectStatus(
      await call(base, 'DELETE', `/api/slos/${slo_id}?project_id=${B}`, { key: boot }),
      404,
      'global key, project B',
    );
    expect(
      (await call(base, 'GET', `/api/slos?project_id=${A}`, { key: boot })).json.map(
        (s: { slo_id: string }) => s.slo_id,
      ),
    ).toContain(slo_id);
    // A key bound to B cannot name A, in the query or in the body.
    expectStatus(
      await call(base, 'GET', `/api/slos?project_id=${A}`, { key: adminB }),
      403,
      'B names A',
    );
    expectStatus(await post(adminB, { ...VALID, project_id: A }), 403, 'B body names A');
    expect((await gql(adminB, `{ slos { sloId } }`)).data.slos).toEqual([{ sloId: inB.slo_id }]);
  });

  it('refuses the 201st SLO of a project with 409, and a deleted project takes its SLOs along', async () => {
    const C = 'slo-many';
    await createProject(base, boot, C);
    const existing = (await call(base, 'GET', `/api/slos?project_id=${C}`, { key: boot })).json
      .length;
    for (let i = existing; i < 200; i++) {
      expectStatus(
        await call(base, 'POST', `/api/slos?project_id=${C}`, {
          key: boot,
          body: { ...VALID, agent_name: `agent-${i}` },
        }),
        201,
        `slo ${i}`,
      );
    }
    const over = await call(base, 'POST', `/api/slos?project_id=${C}`, { key: boot, body: VALID });
    expect(over.status).toBe(409);
    expect(over.json.detail).toMatch(/200 SLOs/);
    await server.services.slos.evaluate(C);
    expectStatus(
      await call(base, 'DELETE', `/api/projects/${C}`, { key: boot }),
      204,
      'delete project',
    );
    const { rows } = await execute<{ slos: number; states: number }>(
      server.services.store.db,
      sql`select (select count(*)::int from slos where project_id = ${C}) as slos, (select count(*)::int from slo_states where project_id = ${C}) as states`,
    );
    expect(rows).toEqual([{ slos: 0, states: 0 }]);
  });
});

describe('SLOs over GraphQL', () => {
  it('creates with the same rules and reports the same status as REST', async () => {
    const t0 = Date.now() - 3_600_000;
    const spans = [0, 1, 2, 3].map((i) =>
      nativeSpan({
        project_id: A,
        session_id: `gql-${i}`,
        agent_name: 'gql-agent',
        status: i === 0 ? 'error' : 'success',
        started_at: new Date(t0 + i * 1000).toISOString(),
        ended_at: new Date(t0 + i * 1000 + 100 * (i + 1)).toISOString(),
      }),
    );
    expectStatus(
      await call(base, 'POST', '/api/traces/spans', { key: adminA, body: spans }),
      202,
      'ingest',
    );

    const created = await gql(
      adminA,
      'mutation ($input: SloInput!) { createSlo(input: $input) { sloId projectId agentName metric threshold windowHours } }',
      {
        input: { agentName: 'gql-agent', metric: 'success_rate', threshold: 0.95, windowHours: 6 },
      },
    );
    const slo = created.data.createSlo;
    expect(slo).toEqual({
      sloId: expect.any(String),
      projectId: A,
      agentName: 'gql-agent',
      metric: 'success_rate',
      threshold: 95,
      windowHours: 6,
    });
    const rest = (await call(base, 'GET', '/api/slos', { key: adminA })).json.find(
      (s: { slo_id: string }) => s.slo_id === slo.sloId,
    );
    expect(rest).toMatchObject({ agent_name: 'gql-agent', threshold: 95, window_hours: 6 });

    const status = (
      await gql(
        viewerA,
        '{ sloStatus(agentName: "gql-agent") { sloId agentName metric target currentValue windowHours status sampleSize evaluatedAt } }',
      )
    ).data.sloStatus;
    const restStatus = (
      await call(base, 'GET', '/api/slos/status?agent_name=gql-agent', { key: viewerA })
    ).json;
    expect(status).toEqual([
      {
        sloId: slo.sloId,
        agentName: 'gql-agent',
        metric: 'success_rate',
        target: 95,
        currentValue: 75,
        windowHours: 6,
        status: 'breached',
        sampleSize: 4,
        evaluatedAt: expect.any(String),
      },
    ]);
    expect(restStatus).toEqual([
      {
        slo_id: slo.sloId,
        agent_name: 'gql-agent',
        metric: 'success_rate',
        target: 95,
        current_value: 75,
        window_hours: 6,
        status: 'breached',
        sample_size: 4,
        evaluated_at: expect.any(String),
      },
    ]);

    const bad = await gql(
      adminA,
      'mutation { createSlo(input: { agentName: "x", metric: "success_rate", threshold: 101 }) { sloId } }',
    );
    expect(bad.errors[0].extensions).toMatchObject({
      status: 422,
      issues: [{ loc: ['body', 'threshold'] }],
    });
    const updated = await gql(
      adminA,
      `mutation { updateSlo(sloId: "${slo.sloId}", input: { windowHours: 12 }) { threshold windowHours } }`,
    );
    expect(updated.data.updateSlo).toEqual({ threshold: 95, windowHours: 12 });
    expect(
      (await gql(adminB, `mutation { deleteSlo(sloId: "${slo.sloId}") }`)).errors[0].extensions
        .status,
    ).toBe(404);
    expect(
      (await gql(adminA, `mutation { deleteSlo(sloId: "${slo.sloId}") }`)).data.deleteSlo,
    ).toBe(true);
  });
});

describe('spyglass slos', () => {
  it('prints the status through a running server, as a table and as JSON', async () => {
    const { slo_id } = expectStatus(
      await post(adminA, { agent_name: 'cli-agent', metric: 'latency_p99', threshold: 250 }),
      201,
      'create',
    ).json;
    const json = await runCliInProcess([
      'slos',
      '--agent',
      'cli-agent',
      '--json',
      '--url',
      base,
      '--api-key',
      viewerA,
    ]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({
        slo_id,
        agent_name: 'cli-agent',
        metric: 'latency_p99',
        target: 250,
        status: 'no_data',
        current_value: null,
      }),
    ]);
    const table = await runCliInProcess(
      ['slos', '--definitions', '--agent', 'cli-agent', '--url', base],
      {
        SPYGLASS_API_KEY: viewerA,
      },
    );
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/cli-agent\s+│ latency_p99\s+│ 250\s+│ 24\s+│ [0-9a-f-]{36}/);
  });
});
