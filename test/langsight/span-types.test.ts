import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, call, expectStatus } from '../helpers/auth.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { langsightTurn } from './wire.ts';

/**
 * LangSight's `llm_intent` (wrap_llm's tool_use blocks) and `user_message` spans were a 422 that
 * took the LLM span, the handoff and the closing span of the same batch with them (issue 24 item 5).
 */

const ADMIN = bootstrapKey();

describe('LangSight span types llm_intent and user_message', () => {
  let server: InProcessApp;
  const get = async (path: string) =>
    expectStatus(await call(server.httpUrl, 'GET', path, { key: ADMIN }), 200, path).json;
  const turn = langsightTurn('ls-types', Date.now() - 5000);

  beforeAll(async () => {
    server = await startInProcessApp({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
    const r = await call(server.httpUrl, 'POST', '/api/traces/spans', {
      key: ADMIN,
      body: turn.spans,
    });
    expect(r.json).toEqual({ accepted: 6, duplicates: 0 });
  });
  afterAll(async () => server?.close());

  it('stores both types and the session tree links the tool call under the intent it claims', async () => {
    const { session, spans } = await get('/api/agents/sessions/ls-types');
    expect(spans.map((s: any) => [s.span_id, s.span_type])).toEqual([
      [turn.ids.user, 'user_message'],
      [turn.ids.closing, 'agent'],
    ]);
    const closing = spans[1];
    expect(closing.children.map((c: any) => c.span_id)).toEqual([turn.ids.llm, turn.ids.handoff]);
    const [intent] = closing.children[0].children;
    expect(intent).toMatchObject({
      span_id: turn.ids.intent,
      span_type: 'llm_intent',
      tool_name: 'get_order',
      input_args: { order_id: 42 },
    });
    expect(intent.children.map((c: any) => [c.span_id, c.span_type])).toEqual([
      [turn.ids.tool, 'tool_call'],
    ]);
    expect(spans[0].llm_input).toBe('Where is my order 42?');
    // Neither type is a tool call: the session counts the one real call.
    expect(session).toMatchObject({
      tool_calls: 1,
      span_count: 6,
      servers_used: ['orders-mcp'],
      health_tag: 'success',
    });
  });

  it('filters by the new types, and neither becomes an agent run or a server of its own in lineage', async () => {
    expect(
      (await get('/api/traces/spans?span_type=llm_intent')).map((s: any) => s.span_id),
    ).toEqual([turn.ids.intent]);
    expect(
      (await get('/api/traces/spans?span_type=user_message')).map((s: any) => s.span_id),
    ).toEqual([turn.ids.user]);
    const lineage = await get('/api/agents/lineage');
    expect(lineage.edges).toContainEqual(
      expect.objectContaining({
        source: 'agent:support-agent',
        target: 'server:orders-mcp',
        type: 'calls',
        calls: 1,
      }),
    );
    expect(lineage.nodes.find((n: any) => n.id === 'agent:support-agent')).toMatchObject({
      calls: 2,
    });
    expect(lineage.nodes.map((n: any) => n.id).sort()).toEqual([
      'agent:billing-agent',
      'agent:support-agent',
      'server:orders-mcp',
    ]);
  });

  it('GraphQL shows them in the session tree with their depth', async () => {
    const r = await call(server.httpUrl, 'POST', '/graphql', {
      key: ADMIN,
      body: {
        query:
          '{ session(sessionId: "ls-types") { tree { depth span { spanId spanType parentSpanId } } } }',
      },
    });
    expect(r.json.errors).toBeUndefined();
    const tree = r.json.data.session.tree.map((n: any) => [n.depth, n.span.spanType]);
    expect(tree).toEqual([
      [0, 'user_message'],
      [0, 'agent'],
      [1, 'agent'],
      [2, 'llm_intent'],
      [3, 'tool_call'],
      [1, 'handoff'],
    ]);
  });
});
