import { describe, expect, it } from 'vitest';
import { normalizeOtlp } from '../../src/normalize/otlp.ts';
import type { Attrs, DecodedExport } from '../../src/model/otlp.ts';

function one(attributes: Attrs, opts: { name?: string; resource?: Attrs; statusCode?: number; statusMessage?: string } = {}) {
  const req: DecodedExport = {
    resourceSpans: [{
      resource: opts.resource ?? { 'service.name': 'svc' },
      spans: [{ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), parentSpanId: '', name: opts.name ?? 'op', startTimeMs: 1000, endTimeMs: 1012.25, attributes, statusCode: opts.statusCode ?? 0, statusMessage: opts.statusMessage ?? '' }],
    }],
  };
  return normalizeOtlp(req, null, 'default');
}

describe('OTLP normalisation (decisions §3)', () => {
  it('ignores spans that are not agent or tool spans', () => {
    expect(one({ 'http.request.method': 'GET' })).toEqual({ spans: [], ignored: 1, rejected: [] });
  });

  it('reads the server and tool from a span named mcp.<server>.<tool>', () => {
    const [s] = one({}, { name: 'mcp.github.search.code' }).spans;
    expect(s).toMatchObject({ serverName: 'github', toolName: 'search.code', spanType: 'tool_call', agentName: 'svc', latencyMs: 12.25 });
  });

  it('maps OpenInference tool and LLM spans', () => {
    const [tool] = one({ 'openinference.span.kind': 'TOOL', 'tool.name': 'lookup', 'input.value': '{"q":1}', 'output.value': 'ok', 'session.id': 'oi-1' }).spans;
    expect(tool).toMatchObject({ spanType: 'tool_call', toolName: 'lookup', inputArgs: { q: 1 }, outputResult: 'ok', sessionId: 'oi-1' });
    const [llm] = one({ 'openinference.span.kind': 'LLM', 'llm.model_name': 'claude-sonnet-4', 'llm.token_count.prompt': 10, 'llm.token_count.completion': 5, 'agent.name': 'writer' }).spans;
    expect(llm).toMatchObject({ spanType: 'agent', modelId: 'claude-sonnet-4', inputTokens: 10, outputTokens: 5, agentName: 'writer', serverName: 'writer' });
  });

  it('maps OpenLLMetry (Traceloop) spans', () => {
    const [s] = one({ 'traceloop.span.kind': 'tool', 'traceloop.entity.name': 'fetcher', 'traceloop.entity.input': '{"url":"x"}', 'gen_ai.usage.prompt_tokens': '7', 'gen_ai.usage.completion_tokens': 3 }).spans;
    expect(s).toMatchObject({ spanType: 'tool_call', agentName: 'fetcher', inputArgs: { url: 'x' }, inputTokens: 7, outputTokens: 3 });
  });

  it('takes the first alias present, in the documented order', () => {
    const [s] = one({ 'gen_ai.tool.name': 't', 'server.address': 'api.example.com', 'gen_ai.system': 'openai', 'gen_ai.request.model': 'a', 'gen_ai.response.model': 'b' }).spans;
    expect(s).toMatchObject({ serverName: 'api.example.com', modelId: 'a', spanType: 'tool_call' });
    // LLM content makes an agent span, whose server is its agent (spec §2.1).
    const [llm] = one({ 'gen_ai.operation.name': 'chat', 'gen_ai.system': 'openai', 'gen_ai.input.messages': [{ role: 'user' }], 'gen_ai.agent.name': 'bot' }).spans;
    expect(llm).toMatchObject({ spanType: 'agent', serverName: 'bot', llmInput: '[{"role":"user"}]' });
  });

  it('classifies errors and timeouts, and wraps non-object arguments', () => {
    expect(one({ 'gen_ai.tool.name': 't' }, { statusCode: 2, statusMessage: 'boom' }).spans[0]).toMatchObject({ status: 'error', error: 'boom' });
    expect(one({ 'gen_ai.tool.name': 't', 'error.type': 'TimeoutError' }, { statusCode: 2 }).spans[0]).toMatchObject({ status: 'timeout', error: 'TimeoutError' });
    expect(one({ 'gen_ai.tool.name': 't', 'gen_ai.tool.call.arguments': 'not json' }).spans[0]?.inputArgs).toEqual({ value: 'not json' });
    expect(one({ 'gen_ai.tool.name': 't', 'gen_ai.tool.call.arguments': '[1,2]' }).spans[0]?.inputArgs).toEqual({ value: [1, 2] });
  });

  it('gives spans the key project over the resource project, and honours spyglass attributes', () => {
    const req = (p: string | null) => normalizeOtlp({ resourceSpans: [{ resource: { 'spyglass.project_id': 'from-resource' }, spans: [{ traceId: '', spanId: 'c'.repeat(16), parentSpanId: '', name: 'x', startTimeMs: 0, endTimeMs: 1, attributes: { 'spyglass.span_type': 'handoff', 'gen_ai.agent.name': 'a', 'spyglass.handoff.target': 'b', 'spyglass.health_tag': 'loop_detected' }, statusCode: 0, statusMessage: '' }] }] }, p, 'default').spans[0];
    expect(req(null)).toMatchObject({ projectId: 'from-resource', spanType: 'handoff', serverName: 'a', toolName: '→ b', healthTag: 'loop_detected', traceId: null });
    expect(req('bound')?.projectId).toBe('bound');
  });
});
