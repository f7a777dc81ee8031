import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PREVENTION } from '../../src/model/prevention-config.ts';
import { bootstrapKey, call, expectStatus, twoProjects } from '../helpers/auth.ts';
import { runCliInProcess } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { nativeSpan } from '../helpers/spans.ts';

/** The prevention config through GraphQL and the CLI, and the budget_warning alert from ingested SDK spans. */

const P = 'prev-gql';
const OTHER = 'prev-other';
let server: TestServer;
let base: string;
const boot = bootstrapKey();
let admin: string;
let viewer: string;
let otherAdmin: string;

beforeAll(async () => {
  server = await startTestServer({ SPYGLASS_API_KEYS: boot, SPYGLASS_RATE_LIMITS: 'off' });
  base = server.httpUrl;
  ({
    admin: admin,
    viewer: viewer,
    otherAdmin: otherAdmin,
  } = await twoProjects(base, boot, P, OTHER));
});
afterAll(async () => server?.dispose());

const gql = async (key: string, query: string, variables: Record<string, unknown> = {}) =>
  (await call(base, 'POST', '/graphql', { key, body: { query, variables } })).json;
const FIELDS =
  'id projectId agentName isAgentOverride loopEnabled loopThreshold loopAction maxSteps maxCostUsd maxWallTimeS budgetSoftAlert cbEnabled cbFailureThreshold cbCooldownSeconds cbHalfOpenMaxCalls updatedAt';

describe('GraphQL', () => {
  it('sets, merges, reads, lists and deletes configs with the same rules as REST', async () => {
    const fresh = (await gql(viewer, `{ preventionConfig(agentName: "g1") { ${FIELDS} } }`)).data
      .preventionConfig;
    expect(fresh).toEqual({
      id: null,
      projectId: P,
      agentName: '*',
      isAgentOverride: false,
      loopEnabled: true,
      loopThreshold: 5,
      loopAction: 'warn',
      maxSteps: null,
      maxCostUsd: null,
      maxWallTimeS: null,
      budgetSoftAlert: 0.8,
      cbEnabled: true,
      cbFailureThreshold: 5,
      cbCooldownSeconds: 30,
      cbHalfOpenMaxCalls: 3,
      updatedAt: null,
    });

    const set = await gql(
      admin,
      `mutation($i: PreventionConfigInput!) { setPreventionConfig(agentName: "g1", input: $i) { ${FIELDS} } }`,
      { i: { loopThreshold: 3, maxCostUsd: 4 } },
    );
    expect(set.data.setPreventionConfig).toMatchObject({
      agentName: 'g1',
      isAgentOverride: true,
      loopThreshold: 3,
      maxCostUsd: 4,
      loopAction: 'warn',
    });
    const merged = await gql(
      admin,
      `mutation { updatePreventionConfig(agentName: "g1", input: { loopAction: "terminate", maxSteps: null }) { loopThreshold loopAction maxCostUsd maxSteps } }`,
    );
    expect(merged.data.updatePreventionConfig).toEqual({
      loopThreshold: 3,
      loopAction: 'terminate',
      maxCostUsd: 4,
      maxSteps: null,
    });
    // REST sees the same row.
    expect(
      expectStatus(
        await call(base, 'GET', '/api/agents/g1/prevention-config', { key: viewer }),
        200,
        'rest',
      ).json,
    ).toMatchObject({ loop_threshold: 3, loop_action: 'terminate' });

    await gql(admin, 'mutation { setPreventionConfig(input: { cbEnabled: false }) { id } }');
    const list = (await gql(viewer, '{ preventionConfigs { agentName cbEnabled } }')).data
      .preventionConfigs;
    expect(list).toEqual([
      { agentName: '*', cbEnabled: false },
      { agentName: 'g1', cbEnabled: true },
    ]);

    const after = await gql(
      admin,
      'mutation { deletePreventionConfig(agentName: "g1") { agentName isAgentOverride cbEnabled } }',
    );
    expect(after.data.deletePreventionConfig).toEqual({
      agentName: '*',
      isAgentOverride: false,
      cbEnabled: false,
    });
    expect(
      (await gql(viewer, '{ preventionConfig(agentName: "g1") { agentName cbEnabled } }')).data
        .preventionConfig,
    ).toEqual({ agentName: '*', cbEnabled: false });
    expect(
      (await gql(admin, 'mutation { deletePreventionConfig(agentName: "g1") { id } }')).errors[0]
        .extensions.status,
    ).toBe(404);
  });

  it('answers 422 naming the field, 403 to viewers and to another project', async () => {
    const bad = await gql(
      admin,
      'mutation { setPreventionConfig(agentName: "g2", input: { loopAction: "stop", loopThreshold: 0 }) { id } }',
    );
    expect(bad.errors[0].extensions).toMatchObject({ status: 422 });
    expect(
      bad.errors[0].extensions.issues.map((i: { loc: string[] }) => i.loc.join('.')).sort(),
    ).toEqual(['body.loop_action', 'body.loop_threshold']);
    expect(
      (await gql(viewer, 'mutation { updatePreventionConfig(input: { maxSteps: 3 }) { id } }'))
        .errors[0].extensions.status,
    ).toBe(403);
    expect(
      (await gql(otherAdmin, `{ preventionConfigs(projectId: "${P}") { id } }`)).errors[0]
        .extensions.status,
    ).toBe(403);
    expect(
      (
        await gql(
          otherAdmin,
          `mutation { setPreventionConfig(projectId: "${P}", input: {}) { id } }`,
        )
      ).errors[0].extensions.status,
    ).toBe(403);
  });
});

describe('budget_warning alert', () => {
  it('fires once per session from spans the SDK tagged, and is no agent_failure', async () => {
    const spans = (session: string, n: number) =>
      Array.from({ length: n }, (_, i) =>
        nativeSpan({
          session_id: session,
          trace_id: session,
          health_tag: i === 0 ? 'budget_warning' : null,
          tool_name: `t${i}`,
        }),
      );
    for (const batch of [spans('soft-1', 2), spans('soft-1', 1), spans('soft-2', 1)]) {
      expectStatus(
        await call(base, 'POST', '/api/traces/spans', { key: admin, body: batch }),
        202,
        'ingest',
      );
    }
    await server.services.alertProducers.settled();
    const inbox = expectStatus(
      await call(base, 'GET', '/api/alerts/inbox?status=all&limit=200', { key: viewer }),
      200,
      'inbox',
    ).json as { type: string; severity: string; session_id: string }[];
    const mine = inbox.filter((a) => a.session_id === 'soft-1' || a.session_id === 'soft-2');
    expect(mine.map((a) => [a.type, a.severity, a.session_id]).sort()).toEqual([
      ['budget_warning', 'warning', 'soft-1'],
      ['budget_warning', 'warning', 'soft-2'],
    ]);
    // The session goes on and stays healthy enough: tagged budget_warning, not a failure.
    const session = expectStatus(
      await call(base, 'GET', '/api/agents/sessions/soft-1', { key: viewer }),
      200,
      'session',
    ).json;
    expect(session.session.health_tag).toBe('budget_warning');
    // Its chat toggle exists and is on by default.
    const config = expectStatus(
      await call(base, 'GET', '/api/alerts/config', { key: admin }),
      200,
      'alert config',
    ).json;
    expect(config.alert_types.budget_warning).toBe(true);
  });
});

describe('CLI against a running server', () => {
  const cli = (args: string[], key = admin) =>
    runCliInProcess(['prevention', ...args, '--url', base, '--api-key', key]);

  it('sets with PATCH semantics, gets, lists and deletes, with --json', async () => {
    const set1 = await cli([
      'set',
      '--agent',
      'cli-agent',
      '--loop-threshold',
      '4',
      '--max-cost-usd',
      '2.5',
      '--json',
    ]);
    expect(set1.code, set1.stderr).toBe(0);
    expect(JSON.parse(set1.stdout)).toMatchObject({
      ...DEFAULT_PREVENTION,
      agent_name: 'cli-agent',
      is_agent_override: true,
      loop_threshold: 4,
      max_cost_usd: 2.5,
    });
    const set2 = await cli([
      'set',
      '--agent',
      'cli-agent',
      '--loop-action',
      'terminate',
      '--cb-enabled',
      'false',
      '--max-cost-usd',
      'none',
      '--json',
    ]);
    expect(JSON.parse(set2.stdout)).toMatchObject({
      loop_threshold: 4,
      loop_action: 'terminate',
      cb_enabled: false,
      max_cost_usd: null,
    });

    const got = await cli(['get', '--agent', 'cli-agent', '--json'], viewer);
    expect(JSON.parse(got.stdout)).toEqual(JSON.parse(set2.stdout));
    const table = await cli(['get', '--agent', 'cli-agent'], viewer);
    expect(table.stdout).toMatch(/loop_action\s*│\s*terminate/);

    const list = await cli(['list', '--json'], viewer);
    expect(
      (JSON.parse(list.stdout) as { agent_name: string }[]).map((c) => c.agent_name),
    ).toContain('cli-agent');

    const del = await cli(['delete', '--agent', 'cli-agent', '--json']);
    expect(del.code, del.stderr).toBe(0);
    expect(JSON.parse(del.stdout)).toMatchObject({ agent_name: '*', is_agent_override: false });
  });

  it('reports the field a bad value names, and a viewer key refused', async () => {
    const bad = await cli(['set', '--loop-threshold', '0']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('loop_threshold');
    const refused = await cli(['set', '--max-steps', '3'], viewer);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('403');
  });
});
