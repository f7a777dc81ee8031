import { describe, expect, it } from 'vitest';
import { normalizeOtlp } from '../../src/normalize/otlp.ts';
import type { Attrs, DecodedExport } from '../../src/model/otlp.ts';

function one(
  attributes: Attrs,
  opts: { name?: string; resource?: Attrs; statusCode?: number; statusMessage?: string } = {},
) {
  const req: DecodedExport = {
    resourceSpans: [
      {
        resource: opts.resource ?? { 'service.name': 'svc' },
        spans: [
          {
            traceId: 'a'.repeat(32),
            spanId: 'b'.repeat(16),
            parentSpanId: '',
            name: opts.name ?? 'op',
            startTimeMs: 1000,
            endTimeMs: 1012.25,
            attributes,
            statusCode: opts.statusCode ?? 0,
            statusMessage: opts.statusMessage ?? '',
          },
        ],
      },
    ],
  };
  return normalizeOtlp(req, null, 'default');
}

describe('OTLP normalisation (decisions §3)', () => {
  it('ignores spans that are not agent or tool spans', () => {
    expect(one({ 'http.request.method': 'GET' })).toEqual({
      spans: [],
      ignored: 1,
      ignoredByProject: new Map([['default', 1]]),
      rejected: [],
    });
    // Kinds that are not agent, LLM or tool spans, and names that only look like object keys.
    for (const kind of ['GUARDRAIL', 'EVALUATOR', 'task', 'constructor', 'toString', '__proto__']) {
      expect(one({ 'openinference.span.kind': kind }).ignored, kind).toBe(1);
      expect(one({ 'traceloop.span.kind': kind }).ignored, kind).toBe(1);
    }
  });

  it('reads the server and tool from a span named mcp.<server>.<tool>', () => {
    const [s] = one({}, { name: 'mcp.github.search.code' }).spans;
    expect(s).toMatchObject({
      serverName: 'github',
      toolName: 'search.code',
      spanType: 'tool_call',
      agentName: 'svc',
      latencyMs: 12.25,
    });
  });

  it('maps OpenInference tool and LLM spans', () => {
    const [tool] = one({
      'openinference.span.kind': 'TOOL',
      'tool.name': 'lookup',
      'input.value': '{"q":1}',
      'output.value': 'ok',
      'session.id': 'oi-1',
    }).spans;
    expect(tool).toMatchObject({
      spanType: 'tool_call',
      toolName: 'lookup',
      inputArgs: { q: 1 },
      outputResult: 'ok',
      sessionId: 'oi-1',
    });
    const [llm] = one({
      'openinference.span.kind': 'LLM',
      'llm.model_name': 'claude-sonnet-4',
      'llm.token_count.prompt': 10,
      'llm.token_count.completion': 5,
      'agent.name': 'writer',
    }).spans;
    expect(llm).toMatchObject({
      spanType: 'agent',
      modelId: 'claude-sonnet-4',
      inputTokens: 10,
      outputTokens: 5,
      agentName: 'writer',
      serverName: 'writer',
    });
  });

  it("maps OpenLLMetry (Traceloop) spans: a tool span's entity is its tool, its workflow the agent", () => {
    const [s] = one({
      'traceloop.span.kind': 'tool',
      'traceloop.entity.name': 'fetcher',
      'traceloop.workflow.name': 'crawler',
      'traceloop.entity.input': '{"url":"x"}',
      'gen_ai.usage.prompt_tokens': '7',
      'gen_ai.usage.completion_tokens': 3,
    }).spans;
    expect(s).toMatchObject({
      spanType: 'tool_call',
      toolName: 'fetcher',
      agentName: 'crawler',
      inputArgs: { url: 'x' },
      inputTokens: 7,
      outputTokens: 3,
    });
    const [agent] = one({
      'traceloop.span.kind': 'agent',
      'traceloop.entity.name': 'researcher',
      'traceloop.workflow.name': 'crawler',
    }).spans;
    expect(agent).toMatchObject({
      spanType: 'agent',
      agentName: 'researcher',
      serverName: 'researcher',
    });
  });

  it('takes LLM spans without gen_ai.operation.name: prompts, completions, usage, llm.request.type', () => {
    for (const attrs of [
      { 'gen_ai.prompt': 'hi' } as Attrs,
      { 'gen_ai.completion': 'yo' },
      { 'gen_ai.usage.input_tokens': 3 },
      { 'llm.usage.total_tokens': 9 },
      { 'llm.request.type': 'chat' },
      { 'gen_ai.prompt.0.content': 'hi' },
    ]) {
      expect(one(attrs).spans[0]?.spanType, JSON.stringify(attrs)).toBe('agent');
    }
    const [old] = one({
      'llm.request.type': 'completion',
      'llm.vendor': 'Anthropic',
      'llm.request.model': 'claude-3-5-haiku',
      'llm.usage.prompt_tokens': 30,
      'llm.usage.completion_tokens': 2,
      'llm.prompts.0.content': 'Rank',
      'llm.completions.0.content': 'A',
    }).spans;
    expect(old).toMatchObject({
      modelId: 'claude-3-5-haiku',
      inputTokens: 30,
      outputTokens: 2,
      llmInput: '[{"content":"Rank"}]',
      llmOutput: '[{"content":"A"}]',
    });
    // Tokens on a tool call do not make it an LLM span (tool calls are priced by rules, not tokens).
    expect(
      one({ 'gen_ai.tool.name': 't', 'gen_ai.usage.input_tokens': 5 }).spans[0]?.spanType,
    ).toBe('tool_call');
    expect(
      one({
        'gen_ai.operation.name': 'embeddings',
        'gen_ai.request.model': 'text-embedding-3-small',
        'gen_ai.usage.input_tokens': 8,
      }).spans[0]?.spanType,
    ).toBe('agent');
  });

  it('puts flattened messages back together in index order, and counts a lone total as input', () => {
    const [s] = one({
      'openinference.span.kind': 'LLM',
      'llm.input_messages.10.message.content': 'later',
      'llm.input_messages.2.message.role': 'user',
      'llm.input_messages.2.message.content': 'first',
      'llm.input_messages.2.message.__proto__': 'x',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'f',
      'embedding.model_name': 'text-embedding-3-small',
      'llm.token_count.total': 12,
    }).spans;
    expect(JSON.parse(s?.llmInput ?? '')).toEqual([
      { role: 'user', content: 'first', ['__proto__']: 'x' },
      { content: 'later' },
    ]);
    expect(JSON.parse(s?.llmOutput ?? '')).toEqual([
      { 'tool_calls.0.tool_call.function.name': 'f' },
    ]);
    expect(s).toMatchObject({
      modelId: 'text-embedding-3-small',
      inputTokens: 12,
      outputTokens: null,
    });
  });

  it('names the agent from gen_ai.agent.name, else gen_ai.agent.id; session.id wins over gen_ai.conversation.id', () => {
    const run = {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'asst_1',
      'gen_ai.conversation.id': 'conv-1',
    };
    expect(one(run).spans[0]).toMatchObject({
      agentName: 'asst_1',
      serverName: 'asst_1',
      sessionId: 'conv-1',
    });
    expect(
      one({ ...run, 'gen_ai.agent.name': 'planner', 'session.id': 'sess-1' }).spans[0],
    ).toMatchObject({ agentName: 'planner', sessionId: 'sess-1' });
  });

  it('takes the first alias present, in the documented order', () => {
    const [s] = one({
      'gen_ai.tool.name': 't',
      'server.address': 'api.example.com',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'a',
      'gen_ai.response.model': 'b',
    }).spans;
    expect(s).toMatchObject({ serverName: 'api.example.com', modelId: 'a', spanType: 'tool_call' });
    // LLM content makes an agent span, whose server is its agent (docs/ingest.md#otlp-mapping).
    const [llm] = one({
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': 'openai',
      'gen_ai.input.messages': [{ role: 'user' }],
      'gen_ai.agent.name': 'bot',
    }).spans;
    expect(llm).toMatchObject({
      spanType: 'agent',
      serverName: 'bot',
      llmInput: '[{"role":"user"}]',
    });
  });

  it('classifies errors and timeouts, and wraps non-object arguments', () => {
    expect(
      one({ 'gen_ai.tool.name': 't' }, { statusCode: 2, statusMessage: 'boom' }).spans[0],
    ).toMatchObject({ status: 'error', error: 'boom' });
    expect(
      one({ 'gen_ai.tool.name': 't', 'error.type': 'TimeoutError' }, { statusCode: 2 }).spans[0],
    ).toMatchObject({ status: 'timeout', error: 'TimeoutError' });
    expect(
      one({ 'gen_ai.tool.name': 't', 'gen_ai.tool.call.arguments': 'not json' }).spans[0]
        ?.inputArgs,
    ).toEqual({ value: 'not json' });
    expect(
      one({ 'gen_ai.tool.name': 't', 'gen_ai.tool.call.arguments': '[1,2]' }).spans[0]?.inputArgs,
    ).toEqual({ value: [1, 2] });
  });

  it('gives spans the key project over the resource project, and honours spyglass attributes', () => {
    const req = (p: string | null) =>
      normalizeOtlp(
        {
          resourceSpans: [
            {
              resource: { 'spyglass.project_id': 'from-resource' },
              spans: [
                {
                  traceId: '',
                  spanId: 'c'.repeat(16),
                  parentSpanId: '',
                  name: 'x',
                  startTimeMs: 0,
                  endTimeMs: 1,
                  attributes: {
                    'spyglass.span_type': 'handoff',
                    'gen_ai.agent.name': 'a',
                    'spyglass.handoff.target': 'b',
                    'spyglass.health_tag': 'loop_detected',
                  },
                  statusCode: 0,
                  statusMessage: '',
                },
              ],
            },
          ],
        },
        p,
        'default',
      ).spans[0];
    expect(req(null)).toMatchObject({
      projectId: 'from-resource',
      spanType: 'handoff',
      serverName: 'a',
      toolName: '→ b',
      healthTag: 'loop_detected',
      traceId: null,
    });
    expect(req('bound')?.projectId).toBe('bound');
  });
});

describe('keepAllSpans (ingest.otlp_keep_all_spans)', () => {
  const span = (spanId: string, traceId: string, attributes: Attrs) => ({
    traceId,
    spanId,
    parentSpanId: '',
    name: spanId,
    startTimeMs: 0,
    endTimeMs: 1,
    attributes,
    statusCode: 0,
    statusMessage: '',
  });
  const req = (): DecodedExport => ({
    resourceSpans: [
      {
        resource: { 'spyglass.project_id': 'a' },
        spans: [
          span('tool', 't1', { 'gen_ai.tool.name': 'x', 'session.id': 's1' }),
          span('http', 't1', { 'http.request.method': 'GET' }),
          span('lonely', 't2', {}),
        ],
      },
      // Same trace id, another project: not the same trace.
      {
        resource: { 'spyglass.project_id': 'b' },
        spans: [span('other', 't1', {}), span('noTrace', '', {})],
      },
    ],
  });

  it('keeps the unselected spans of a selected trace of the same project as generic spans, counts the rest as ignored', () => {
    const r = normalizeOtlp(req(), null, 'default', { keepAllSpans: true });
    expect(r.spans.map((s) => [s.spanId, s.spanType, s.sessionId])).toEqual([
      ['tool', 'tool_call', 's1'],
      ['http', 'generic', 's1'],
    ]);
    expect(r.ignoredByProject).toEqual(
      new Map([
        ['a', 1],
        ['b', 2],
      ]),
    );
    expect(normalizeOtlp(req(), null, 'default').ignored).toBe(4);
  });
});

describe('the agent and session of a span that names none', () => {
  const span = (spanId: string, parentSpanId: string, attributes: Attrs) => ({
    traceId: 't'.repeat(32),
    spanId,
    parentSpanId,
    name: spanId,
    startTimeMs: 0,
    endTimeMs: 1,
    attributes,
    statusCode: 0,
    statusMessage: '',
  });

  it("are its nearest named ancestor's in the export, else the service and none; cycles end", () => {
    const r = normalizeOtlp(
      {
        resourceSpans: [
          {
            resource: { 'service.name': 'svc' },
            spans: [
              span('run', '', {
                'gen_ai.operation.name': 'invoke_agent',
                'gen_ai.agent.name': 'planner',
                'gen_ai.conversation.id': 'conv-1',
              }),
              span('http', 'run', { 'http.request.method': 'GET' }),
              span('llm', 'http', {
                'gen_ai.operation.name': 'chat',
                'gen_ai.request.model': 'gpt-4o',
              }),
              span('sub', 'run', {
                'gen_ai.tool.name': 'x',
                'gen_ai.agent.name': 'helper',
                'session.id': 'own',
              }),
              span('a', 'b', { 'gen_ai.tool.name': 'loop' }),
              span('b', 'a', { 'http.request.method': 'GET' }),
            ],
          },
        ],
      },
      null,
      'default',
    );
    expect(
      Object.fromEntries(r.spans.map((s) => [s.spanId, [s.agentName, s.serverName, s.sessionId]])),
    ).toEqual({
      run: ['planner', 'planner', 'conv-1'],
      llm: ['planner', 'planner', 'conv-1'],
      sub: ['helper', 'svc', 'own'],
      a: ['svc', 'svc', null],
    });
  });
});
