import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, configFile, createProject, expectStatus } from '../helpers/auth.ts';
import { backends } from '../helpers/backends.ts';
import { runCliInProcess } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { nativeSpan } from '../helpers/spans.ts';

const ADMIN = `sg_${'e'.repeat(64)}`;
const HOUR = 3_600_000;
let server: TestServer;
let config: { path: string; remove(): void };
const t0 = Date.now();
const at = (msAgo: number) => new Date(t0 - msAgo).toISOString();

const llm = (
  session: string,
  agent: string,
  model: string,
  msAgo: number,
  input: number,
  output: number,
  over: Record<string, unknown> = {},
) =>
  nativeSpan({
    session_id: session,
    trace_id: session,
    agent_name: agent,
    span_type: 'agent',
    server_name: agent,
    tool_name: 'plan',
    model_id: model,
    input_tokens: input,
    output_tokens: output,
    started_at: at(msAgo),
    ended_at: at(msAgo - 100),
    input_args: null,
    output_result: null,
    ...over,
  });
const tool = (
  session: string,
  agent: string,
  serverName: string,
  toolName: string,
  msAgo: number,
) =>
  nativeSpan({
    session_id: session,
    trace_id: session,
    agent_name: agent,
    server_name: serverName,
    tool_name: toolName,
    started_at: at(msAgo),
    ended_at: at(msAgo - 50),
  });

async function ingest(spans: unknown[]): Promise<void> {
  expectStatus(
    await call(server.httpUrl, 'POST', '/api/traces/spans', { key: ADMIN, body: spans }),
    202,
    'ingest',
  );
}
const breakdown = async (query = '') =>
  expectStatus(
    await call(server.httpUrl, 'GET', `/api/costs/breakdown${query}`, { key: ADMIN }),
    200,
    'breakdown',
  ).json;

describe.each(backends.filter((b) => b.available))('cost breakdown on $name', (backend) => {
  beforeAll(async () => {
    config = configFile(
      'costs:\n  rules:\n    - server: github\n      tool: "create_*"\n      cost_usd: 0.01\n',
    );
    server = await startTestServer({
      ...(await backend.env()),
      SPYGLASS_API_KEYS: ADMIN,
      SPYGLASS_RATE_LIMITS: 'off',
      SPYGLASS_CONFIG: config.path,
    });
    // Three days ago: outside 24h, inside 7d; gpt-4o at the shipped 2.5 / 10 per 1M.
    await ingest([
      llm('s3', 'planner', 'gpt-4o', 72 * HOUR, 1000, 0),
      tool('s3', 'planner', 'github', 'create_issue', 72 * HOUR),
    ]);
    // Batch 1, five hours ago: a known model, an unknown one, and tool calls with and without a rule.
    await ingest([
      llm('s1', 'planner', 'gpt-4o-2024-08-06', 5 * HOUR, 1000, 500),
      llm('s1', 'planner', 'acme-llm-1', 5 * HOUR, 2000, 100),
      tool('s1', 'planner', 'github', 'create_issue', 5 * HOUR),
      tool('s1', 'planner', 'github', 'list_issues', 5 * HOUR),
      tool('s1', 'planner', 'filesystem', 'read_file', 5 * HOUR),
    ]);
    // The price of gpt-4o changes three hours ago: 5 / 20 per 1M from then on.
    expectStatus(
      await call(server.httpUrl, 'PATCH', '/api/costs/models/gpt-4o', {
        key: ADMIN,
        body: { input_per_1m_usd: 5, output_per_1m_usd: 20, effective_from: at(3 * HOUR) },
      }),
      200,
      'patch',
    );
    // Batch 2: one call after the change, one that started before it (old price), another agent.
    await ingest([
      llm('s1', 'planner', 'gpt-4o-2024-08-06', 2 * HOUR, 1000, 500),
      llm('s1', 'planner', 'gpt-4o-2024-08-06', 4 * HOUR, 1000, 500),
      tool('s1', 'planner', 'github', 'create_pr', 2 * HOUR),
      llm('s2', 'researcher', 'claude-sonnet-4-20250514', 2 * HOUR, 1000, 1000),
    ]);
  }, 180_000); // starting PGlite and ingesting takes long on a loaded 2-core machine
  afterAll(async () => {
    await server?.dispose();
    config?.remove();
  });

  it('prices known and unknown models, the price change by start time, and tool rules (24h)', async () => {
    const b = await breakdown();
    expect(b.window).toBe('24h');
    // llm: 0.0075 (old gpt-4o) + 0.023 (acme at 10/30) + 0.015 (new gpt-4o) + 0.0075 (started before the change) + 0.018 (sonnet)
    expect(b.llm_cost_usd).toBeCloseTo(0.071, 9);
    expect(b.tool_cost_usd).toBeCloseTo(0.02, 9);
    expect(b.total_cost_usd).toBeCloseTo(0.091, 9);
    expect(b.by_model).toEqual([
      {
        model_id: 'gpt-4o-2024-08-06',
        calls: 3,
        input_tokens: 3000,
        output_tokens: 1500,
        cost_usd: 0.03,
        estimated: false,
      },
      {
        model_id: 'acme-llm-1',
        calls: 1,
        input_tokens: 2000,
        output_tokens: 100,
        cost_usd: 0.023,
        estimated: true,
      },
      {
        model_id: 'claude-sonnet-4-20250514',
        calls: 1,
        input_tokens: 1000,
        output_tokens: 1000,
        cost_usd: 0.018,
        estimated: false,
      },
    ]);
    expect(b.by_tool).toEqual([
      { server_name: 'github', tool_name: 'create_issue', calls: 1, cost_usd: 0.01 },
      { server_name: 'github', tool_name: 'create_pr', calls: 1, cost_usd: 0.01 },
      { server_name: 'filesystem', tool_name: 'read_file', calls: 1, cost_usd: 0 },
      { server_name: 'github', tool_name: 'list_issues', calls: 1, cost_usd: 0 },
    ]);
    expect(b.by_agent).toEqual([
      { agent_name: 'planner', llm_cost_usd: 0.053, tool_cost_usd: 0.02, cost_usd: 0.073 },
      { agent_name: 'researcher', llm_cost_usd: 0.018, tool_cost_usd: 0, cost_usd: 0.018 },
    ]);
    expect(b.top_sessions.map((s: any) => [s.session_id, s.agent_name, s.cost_usd])).toEqual([
      ['s1', 'planner', 0.073],
      ['s2', 'researcher', 0.018],
    ]);
    // Hour-aligned edges: until is the end of the current hour, since 24 hours before it.
    const until = Date.parse(b.until);
    expect(until % HOUR).toBe(0);
    expect(until - Date.parse(b.since)).toBe(24 * HOUR);
    expect(until).toBeGreaterThan(Date.now());
  });

  it('a 7d window adds the older session at the price in effect then', async () => {
    const b = await breakdown('?window=7d');
    expect(b.window).toBe('7d');
    expect(b.llm_cost_usd).toBeCloseTo(0.0735, 9);
    expect(b.tool_cost_usd).toBeCloseTo(0.03, 9);
    expect(b.total_cost_usd).toBeCloseTo(0.1035, 9);
    expect(b.by_model.find((m: any) => m.model_id === 'gpt-4o')).toEqual({
      model_id: 'gpt-4o',
      calls: 1,
      input_tokens: 1000,
      output_tokens: 0,
      cost_usd: 0.0025,
      estimated: false,
    });
    expect(b.by_tool[0]).toEqual({
      server_name: 'github',
      tool_name: 'create_issue',
      calls: 2,
      cost_usd: 0.02,
    });
    expect(b.top_sessions.map((s: any) => [s.session_id, s.cost_usd])).toEqual([
      ['s1', 0.073],
      ['s2', 0.018],
      ['s3', 0.0125],
    ]);
  });

  it("includes tool costs in the session's est_cost_usd and stores each span's cost", async () => {
    const s1 = expectStatus(
      await call(server.httpUrl, 'GET', '/api/agents/sessions/s1', { key: ADMIN }),
      200,
      'session',
    ).json;
    expect(s1.session.est_cost_usd).toBeCloseTo(0.073, 9);
    const flat = (n: any): any[] => [n, ...n.children.flatMap(flat)];
    const costs = s1.spans
      .flatMap(flat)
      .map((n: any) => [
        n.started_at === at(2 * HOUR),
        n.model_id ?? `${n.server_name}.${n.tool_name}`,
        n.cost_usd,
        n.cost_estimated,
      ]);
    expect(costs.sort((a: any, b: any) => String(a).localeCompare(String(b)))).toEqual([
      [false, 'acme-llm-1', 0.023, true],
      [false, 'filesystem.read_file', 0, false],
      [false, 'github.create_issue', 0.01, false],
      [false, 'github.list_issues', 0, false],
      [false, 'gpt-4o-2024-08-06', 0.0075, false],
      [false, 'gpt-4o-2024-08-06', 0.0075, false],
      [true, 'github.create_pr', 0.01, false],
      [true, 'gpt-4o-2024-08-06', 0.015, false],
    ]);
  });

  it('refuses an unknown window, naming the field', async () => {
    const r = await call(server.httpUrl, 'GET', '/api/costs/breakdown?window=1h', { key: ADMIN });
    expect(r.status).toBe(422);
    expect(r.json.detail[0].loc).toEqual(['query', 'window']);
  });

  it("keeps projects apart: another project's spans and prices are its own", async () => {
    await createProject(server.httpUrl, ADMIN, 'b');
    await ingest([llm('b1', 'planner', 'gpt-4o', 2 * HOUR, 1000, 500, { project_id: 'b' })]);
    const b = expectStatus(
      await call(server.httpUrl, 'GET', '/api/costs/breakdown?project_id=b', { key: ADMIN }),
      200,
      'b',
    ).json;
    // Project default's change to 5 / 20 does not apply in b: the shipped 2.5 / 10.
    expect(b.total_cost_usd).toBeCloseTo(0.0075, 9);
    expect((await breakdown()).total_cost_usd).toBeCloseTo(0.091, 9);
  });

  it('is the same over GraphQL', async () => {
    const r = expectStatus(
      await call(server.httpUrl, 'POST', '/graphql', {
        key: ADMIN,
        body: {
          query:
            '{ costBreakdown(window: "7d") { window totalCostUsd llmCostUsd toolCostUsd byModel { modelId costUsd estimated } byTool { serverName toolName calls costUsd } byAgent { agentName costUsd } topSessions { sessionId costUsd } } }',
        },
      }),
      200,
      'graphql',
    ).json;
    const g = r.data.costBreakdown;
    expect(g).toMatchObject({
      window: '7d',
      totalCostUsd: 0.1035,
      llmCostUsd: 0.0735,
      toolCostUsd: 0.03,
    });
    expect(g.byModel.find((m: any) => m.modelId === 'acme-llm-1')).toEqual({
      modelId: 'acme-llm-1',
      costUsd: 0.023,
      estimated: true,
    });
    expect(g.topSessions[0]).toEqual({ sessionId: 's1', costUsd: 0.073 });
    const bad = (
      await call(server.httpUrl, 'POST', '/graphql', {
        key: ADMIN,
        body: { query: '{ costBreakdown(window: "2d") { window } }' },
      })
    ).json;
    expect(bad.errors[0].extensions).toMatchObject({ code: 'VALIDATION', status: 422 });
  });

  it('`spyglass costs --json` prints the breakdown; without --json, three tables', async () => {
    const json = await runCliInProcess([
      'costs',
      '--window',
      '7d',
      '--json',
      '--url',
      server.httpUrl,
      '--api-key',
      ADMIN,
    ]);
    expect(json.code).toBe(0);
    const b = JSON.parse(json.stdout);
    expect(b).toMatchObject({ window: '7d', total_cost_usd: 0.1035, tool_cost_usd: 0.03 });
    expect(b.by_agent.map((a: any) => a.agent_name)).toEqual(['planner', 'researcher']);
    const table = await runCliInProcess(['costs', '--url', server.httpUrl], {
      SPYGLASS_API_KEY: ADMIN,
    });
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('costs 24h');
    expect(table.stdout).toContain('total $0.0910');
    expect(table.stdout).toMatch(/acme-llm-1\s+│ 1\s+│ 2000\s+│ 100\s+│ 0\.023\s+│ true/);
    expect(table.stdout).toMatch(/github\s+│ create_pr\s+│ 1\s+│ 0\.01/);
    const bad = await runCliInProcess([
      'costs',
      '--window',
      '1h',
      '--url',
      server.httpUrl,
      '--api-key',
      ADMIN,
    ]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('24h, 7d, 30d');
  });
});
