import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BudgetExceededError,
  GraphLoopError,
  LoopDetectedError,
  Spyglass,
} from '../../sdk/src/index.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getJson } from '../helpers/spans.ts';
import { mcpPair } from './mcp-pair.ts';

let server: TestServer;
let pair: Awaited<ReturnType<typeof mcpPair>>;
const warnings: string[] = [];
beforeAll(async () => {
  server = await startTestServer({ SPYGLASS_RATE_LIMITS: 'off' });
  pair = await mcpPair();
});
afterAll(async () => {
  await pair?.close();
  await server?.dispose();
});

const newSdk = (extra: ConstructorParameters<typeof Spyglass>[0] = {}) =>
  new Spyglass({
    url: server.httpUrl,
    flushIntervalMs: 60_000,
    logger: { warn: (m) => warnings.push(m) },
    ...extra,
  });

type StoredSpan = Record<string, any>;
async function spansOf(sessionId: string): Promise<StoredSpan[]> {
  const res = await getJson(
    `${server.httpUrl}/api/traces/spans?session_id=${sessionId}&limit=1000`,
  );
  expect(res.status).toBe(200);
  return res.json as StoredSpan[];
}

describe('sessions, handoffs and LLM calls read back from the server', () => {
  it('forms the tree agent → tool_call, handoff → child agent span, with ids and LLM cost', async () => {
    const sg = newSdk();
    const client = sg.wrapMcp(pair.client, { serverName: 'docs' });
    let ids = { sessionId: '', traceId: '', root: '', llmCost: 0 };
    const answer = await sg.session(
      { agentName: 'planner', sessionId: `tree-${Date.now()}` },
      async (session) => {
        const echoed = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
        const llmCost = session.recordLlm({
          model: 'gpt-4o',
          inputTokens: 1000,
          outputTokens: 500,
          prompt: 'plan',
          completion: 'do it',
        });
        const failed = await client.callTool({ name: 'fail', arguments: { message: 'x' } });
        expect(failed.isError).toBe(true);
        await session.handoff('writer', async (child) => {
          expect([child.sessionId, child.traceId, child.agentName]).toEqual([
            session.sessionId,
            session.traceId,
            'writer',
          ]);
          await sg.guard(
            { serverName: 'files', toolName: 'write', args: { path: 'a.md' } },
            () => 'ok',
          );
        });
        ids = {
          sessionId: session.sessionId,
          traceId: session.traceId,
          root: session.spanId,
          llmCost,
        };
        return echoed;
      },
    );
    expect(answer.content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
    // gpt-4o: 2.5 / 10 USD per 1M tokens.
    expect(ids.llmCost).toBeCloseTo(0.0025 + 0.005, 10);
    await sg.shutdown();
    expect(sg.stats()).toMatchObject({ buffered: 0, sent: 7, dropped: 0 });

    const spans = await spansOf(ids.sessionId);
    expect(spans).toHaveLength(7);
    for (const s of spans) expect([s.session_id, s.trace_id]).toEqual([ids.sessionId, ids.traceId]);
    const by = (pred: (s: StoredSpan) => boolean) => spans.filter(pred);
    const [root] = by((s) => s.span_id === ids.root);
    expect(root).toMatchObject({
      span_type: 'agent',
      agent_name: 'planner',
      server_name: 'planner',
      parent_span_id: null,
      status: 'success',
    });
    const tools = by((s) => s.span_type === 'tool_call' && s.agent_name === 'planner');
    expect(tools.map((s) => [s.tool_name, s.status, s.parent_span_id]).sort()).toEqual([
      ['echo', 'success', ids.root],
      ['fail', 'error', ids.root],
    ]);
    expect(tools.find((s) => s.tool_name === 'fail')).toMatchObject({
      error: 'cannot do x',
      input_args: { message: 'x' },
    });
    expect(JSON.parse(tools.find((s) => s.tool_name === 'echo')!.output_result as string)).toEqual({
      content: [{ type: 'text', text: 'Echo: hi' }],
    });
    const [llm] = by((s) => s.model_id === 'gpt-4o');
    expect(llm).toMatchObject({
      span_type: 'agent',
      parent_span_id: ids.root,
      input_tokens: 1000,
      output_tokens: 500,
      llm_input: 'plan',
      llm_output: 'do it',
    });
    const [handoff] = by((s) => s.span_type === 'handoff');
    expect(handoff).toMatchObject({
      server_name: 'planner',
      agent_name: 'planner',
      tool_name: '→ writer',
      target_agent_name: 'writer',
      parent_span_id: ids.root,
    });
    const [child] = by((s) => s.span_type === 'agent' && s.agent_name === 'writer');
    expect(child).toMatchObject({ server_name: 'writer', parent_span_id: handoff!.span_id });
    const [write] = by((s) => s.tool_name === 'write');
    expect(write).toMatchObject({
      agent_name: 'writer',
      server_name: 'files',
      parent_span_id: child!.span_id,
      status: 'success',
    });

    const session = await getJson(`${server.httpUrl}/api/agents/sessions/${ids.sessionId}`);
    expect(session.status).toBe(200);
    expect(session.json.session.health_tag).toBe('tool_failure');
  });

  it('a terminating loop throws, records a prevented span and marks the agent span prevented', async () => {
    const sg = newSdk({ prevention: { loop_detection: { threshold: 2, action: 'terminate' } } });
    const sessionId = `loop-${Date.now()}`;
    const run = sg.session({ agentName: 'looper', sessionId }, async () => {
      for (let i = 0; i < 3; i++)
        await sg.guard(
          { serverName: 'search', toolName: 'find', args: { q: 'same' } },
          () => 'nothing',
        );
    });
    await expect(run).rejects.toBeInstanceOf(LoopDetectedError);
    await sg.shutdown();
    const spans = await spansOf(sessionId);
    const prevented = spans.filter((s) => s.status === 'prevented');
    expect(prevented.map((s) => [s.span_type, s.health_tag])).toEqual(
      expect.arrayContaining([
        ['tool_call', 'loop_detected'],
        ['agent', 'loop_detected'],
      ]),
    );
    expect(spans.filter((s) => s.span_type === 'tool_call' && s.status === 'success')).toHaveLength(
      1,
    );
    const session = await getJson(`${server.httpUrl}/api/agents/sessions/${sessionId}`);
    expect(session.json.session.health_tag).toBe('loop_detected');
  });

  it('records a rejected MCP call as error and an MCP request timeout as timeout, and rethrows both', async () => {
    const sg = newSdk();
    const other = await mcpPair();
    try {
      const client = sg.wrapMcp(other.client, { serverName: 'flaky' });
      const sessionId = `throw-${Date.now()}`;
      await sg.session({ agentName: 'thrower', sessionId }, async () => {
        await expect(client.callTool({ name: 'boom', arguments: {} })).rejects.toThrow(
          /tool crashed/,
        );
        await expect(
          client.callTool({ name: 'slow', arguments: {} }, undefined, { timeout: 50 }),
        ).rejects.toMatchObject({ code: -32001 });
      });
      await sg.shutdown();
      const spans = await spansOf(sessionId);
      const byTool = Object.fromEntries(
        spans.filter((s) => s.span_type === 'tool_call').map((s) => [s.tool_name, s]),
      );
      expect(byTool.boom).toMatchObject({
        status: 'error',
        error: expect.stringContaining('tool crashed'),
      });
      expect(byTool.slow).toMatchObject({
        status: 'timeout',
        error: expect.stringMatching(/timed out/i),
      });
    } finally {
      await other.close();
    }
  });

  it('records graph nodes as agent spans around their calls and refuses a node past its iteration limit', async () => {
    const sg = newSdk({ graph: { maxNodeIterations: 2 } });
    const sessionId = `graph-${Date.now()}`;
    let root = '';
    const run = sg.session({ agentName: 'grapher', sessionId }, async (session) => {
      root = session.spanId;
      for (let i = 0; i < 3; i++)
        await session.node('plan', () =>
          sg.guard({ serverName: 'kb', toolName: 'lookup', args: { i } }, () => i),
        );
    });
    await expect(run).rejects.toBeInstanceOf(GraphLoopError);
    await sg.shutdown();
    const spans = await spansOf(sessionId);
    const nodes = spans.filter((s) => s.tool_name === 'plan');
    expect(nodes.map((s) => s.status).sort()).toEqual(['prevented', 'success', 'success']);
    expect(nodes.every((s) => s.span_type === 'agent' && s.parent_span_id === root)).toBe(true);
    expect(nodes.find((s) => s.status === 'prevented')).toMatchObject({
      health_tag: 'loop_detected',
    });
    const lookups = spans.filter((s) => s.tool_name === 'lookup');
    expect(lookups.map((s) => s.parent_span_id).sort()).toEqual(
      nodes
        .filter((s) => s.status === 'success')
        .map((s) => s.span_id)
        .sort(),
    );
    const session = await getJson(`${server.httpUrl}/api/agents/sessions/${sessionId}`);
    expect(session.json.session.health_tag).toBe('loop_detected');
  });

  it('warns at the soft budget alert and at max cost, tags those calls, then refuses the next call', async () => {
    const logged: string[] = [];
    const sg = newSdk({
      logger: { warn: (m) => logged.push(m) },
      prevention: { budget: { max_cost_usd: 1, soft_alert_threshold_usd: 0.5 } },
    });
    const sessionId = `budget-${Date.now()}`;
    const run = sg.session({ agentName: 'spender', sessionId }, async (session) => {
      await sg.guard({ serverName: 'paid', toolName: 'a', args: {}, costUsd: 0.6 }, () => 1);
      expect(session.healthTag).toBe('budget_warning');
      await sg.guard({ serverName: 'paid', toolName: 'b', args: {}, costUsd: 0.5 }, () => 2);
      await sg.guard({ serverName: 'paid', toolName: 'c', args: {} }, () => 3);
    });
    await expect(run).rejects.toBeInstanceOf(BudgetExceededError);
    expect(logged.filter((m) => m.includes('soft budget alert'))).toHaveLength(1);
    expect(logged.filter((m) => m.includes('max_cost_usd'))).toHaveLength(1);
    await sg.shutdown();
    const byTool = Object.fromEntries(
      (await spansOf(sessionId))
        .filter((s) => s.span_type === 'tool_call')
        .map((s) => [s.tool_name, s]),
    );
    expect([
      byTool.a?.health_tag,
      byTool.b?.health_tag,
      byTool.c?.status,
      byTool.c?.health_tag,
    ]).toEqual(['budget_warning', 'budget_exceeded', 'prevented', 'budget_exceeded']);
  });

  it('calls outside a session share one implicit session of the instance, without a parent span', async () => {
    const sg = newSdk({ agentName: 'loose' });
    await sg.guard({ serverName: 'calc', toolName: 'add', args: { a: 1 } }, () => 2);
    await sg.guard({ serverName: 'calc', toolName: 'add', args: { a: 2 } }, () => 3);
    await sg.shutdown();
    const res = await getJson(`${server.httpUrl}/api/traces/spans?agent_name=loose`);
    const spans = res.json as StoredSpan[];
    expect(spans).toHaveLength(2);
    expect(new Set(spans.map((s) => s.session_id)).size).toBe(1);
    expect(spans.every((s) => s.parent_span_id === null)).toBe(true);
  });
});
