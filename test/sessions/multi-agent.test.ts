import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getJson, postJson } from '../helpers/spans.ts';
import { nativeMultiAgent, sendOtlpMultiAgent } from '../helpers/multi-agent.ts';
import { backends } from '../helpers/backends.ts';

/** The tree without ids and timestamps, which differ by transport. */
function shape(nodes: any[]): any[] {
  return nodes.map((n) => ({
    type: n.span_type,
    server: n.server_name,
    tool: n.tool_name,
    agent: n.agent_name,
    status: n.status,
    children: shape(n.children),
  }));
}

describe.each(backends.filter((b) => b.available))('multi-agent session on $name', (backend) => {
  let server: TestServer;
  const t0 = Date.now() - 10 * 60_000;
  beforeAll(async () => {
    server = await startTestServer({ ...(await backend.env()), SPYGLASS_RATE_LIMITS: 'off' });
    expect(
      (await postJson(`${server.httpUrl}/api/traces/spans`, nativeMultiAgent('ma-native', t0)))
        .status,
    ).toBe(202);
    await sendOtlpMultiAgent(`${server.httpUrl}/v1/traces`, 'ma-otlp', t0);
  });
  afterAll(async () => server?.dispose());

  it('yields the same session and tree over OTLP and the native endpoint', async () => {
    const native = (await getJson(`${server.httpUrl}/api/agents/sessions/ma-native`)).json;
    const otlp = (await getJson(`${server.httpUrl}/api/agents/sessions/ma-otlp`)).json;
    const expected = {
      agent_name: 'planner',
      duration_ms: 900,
      tool_calls: 3,
      failed_calls: 1,
      span_count: 6,
      servers_used: ['filesystem', 'search'],
      health_tag: 'timeout',
      input_tokens: 1000,
      output_tokens: 200,
      est_cost_usd: 0.0045,
    };
    expect(native.session).toMatchObject({ session_id: 'ma-native', ...expected });
    expect(otlp.session).toMatchObject({ session_id: 'ma-otlp', ...expected });
    const tree = [
      {
        type: 'agent',
        server: 'planner',
        tool: 'plan trip',
        agent: 'planner',
        status: 'success',
        children: [
          {
            type: 'tool_call',
            server: 'filesystem',
            tool: 'read_file',
            agent: 'planner',
            status: 'success',
            children: [],
          },
          {
            type: 'handoff',
            server: 'planner',
            tool: '→ researcher',
            agent: 'planner',
            status: 'success',
            children: [
              {
                type: 'agent',
                server: 'researcher',
                tool: 'research',
                agent: 'researcher',
                status: 'success',
                children: [
                  {
                    type: 'tool_call',
                    server: 'search',
                    tool: 'web_search',
                    agent: 'researcher',
                    status: 'timeout',
                    children: [],
                  },
                  {
                    type: 'tool_call',
                    server: 'search',
                    tool: 'web_search',
                    agent: 'researcher',
                    status: 'success',
                    children: [],
                  },
                ],
              },
            ],
          },
        ],
      },
    ];
    expect(shape(native.spans)).toEqual(tree);
    expect(shape(otlp.spans)).toEqual(tree);
  });

  it('lists both sessions, filterable by tag and agent, with cost and tokens', async () => {
    const list = (
      await getJson(`${server.httpUrl}/api/agents/sessions?health_tag=timeout&agent_name=planner`)
    ).json;
    expect(list.map((s: any) => s.session_id).sort()).toEqual(['ma-native', 'ma-otlp']);
    expect(
      (await getJson(`${server.httpUrl}/api/agents/sessions?health_tag=success`)).json,
    ).toEqual([]);
  });

  it('draws the lineage graph: agents, servers, the handoff, counts and errors', async () => {
    const lineage = (await getJson(`${server.httpUrl}/api/agents/lineage`)).json;
    expect(lineage.nodes).toEqual([
      { id: 'agent:planner', type: 'agent', name: 'planner', calls: 2, errors: 0 },
      { id: 'agent:researcher', type: 'agent', name: 'researcher', calls: 2, errors: 0 },
      { id: 'server:filesystem', type: 'server', name: 'filesystem', calls: 2, errors: 0 },
      { id: 'server:search', type: 'server', name: 'search', calls: 4, errors: 2 },
    ]);
    expect(lineage.edges).toEqual(
      expect.arrayContaining([
        {
          source: 'agent:planner',
          target: 'server:filesystem',
          type: 'calls',
          calls: 2,
          errors: 0,
          avg_latency_ms: 20,
        },
        {
          source: 'agent:planner',
          target: 'agent:researcher',
          type: 'handoff',
          calls: 2,
          errors: 0,
          avg_latency_ms: 760,
        },
        {
          source: 'agent:researcher',
          target: 'server:search',
          type: 'calls',
          calls: 4,
          errors: 2,
          avg_latency_ms: 315,
        },
      ]),
    );
    expect(lineage.edges).toHaveLength(3);
  });

  it('answers the same through GraphQL', async () => {
    const query = `{
      session(sessionId: "ma-otlp") { session { healthTag toolCalls failedCalls serversUsed durationMs estCostUsd agentName }
        tree { depth span { spanType serverName toolName status } } }
      sessions(healthTag: "timeout") { edges { node { sessionId } } }
      lineage { nodes { id calls errors } edges { source target type calls errors avgLatencyMs } }
    }`;
    const { data } = (await postJson(`${server.httpUrl}/graphql`, { query })).json;
    expect(data.session.session).toEqual({
      healthTag: 'timeout',
      toolCalls: 3,
      failedCalls: 1,
      serversUsed: ['filesystem', 'search'],
      durationMs: 900,
      estCostUsd: 0.0045,
      agentName: 'planner',
    });
    expect(
      data.session.tree.map(
        (n: any) => `${n.depth}:${n.span.spanType}:${n.span.toolName}:${n.span.status}`,
      ),
    ).toEqual([
      '0:agent:plan trip:success',
      '1:tool_call:read_file:success',
      '1:handoff:→ researcher:success',
      '2:agent:research:success',
      '3:tool_call:web_search:timeout',
      '3:tool_call:web_search:success',
    ]);
    expect(data.sessions.edges.map((e: any) => e.node.sessionId).sort()).toEqual([
      'ma-native',
      'ma-otlp',
    ]);
    const rest = (await getJson(`${server.httpUrl}/api/agents/lineage`)).json;
    expect(data.lineage.nodes).toEqual(
      rest.nodes.map((n: any) => ({ id: n.id, calls: n.calls, errors: n.errors })),
    );
    expect(data.lineage.edges).toHaveLength(rest.edges.length);
  });

  it('auto-registers the agents and servers it saw, without overwriting edits', async () => {
    const put = await fetch(`${server.httpUrl}/api/agents/metadata/planner`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'Plans trips', owner: 'team-a', tags: ['prod'] }),
    });
    expect(put.status).toBe(200);
    await postJson(`${server.httpUrl}/api/traces/spans`, nativeMultiAgent('ma-again', t0));
    const agents = (await getJson(`${server.httpUrl}/api/agents/metadata`)).json;
    expect(agents.map((a: any) => a.name)).toEqual(['planner', 'researcher']);
    expect(agents[0]).toMatchObject({
      description: 'Plans trips',
      owner: 'team-a',
      tags: ['prod'],
      source: 'user',
      status: 'active',
    });
    expect(agents[1]).toMatchObject({ description: 'Auto-discovered from traces', source: 'auto' });
    const servers = (await getJson(`${server.httpUrl}/api/servers/metadata`)).json;
    expect(servers.map((a: any) => a.name)).toEqual(['filesystem', 'search']);
  });
});
