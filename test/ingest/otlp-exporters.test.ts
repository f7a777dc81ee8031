import { gzipSync } from 'node:zlib';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as HttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as HttpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getJson } from '../helpers/spans.ts';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
/** OpenTelemetry high-resolution time: a Date would round to whole milliseconds. */
const hr = (ms: number): [number, number] => [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)];

/** One agent span with two tool calls (one timing out) and a plain HTTP span that must be ignored. */
async function emit(exporter: SpanExporter, session: string): Promise<void> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'travel-agent' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('exporter-test');
  const agent = tracer.startSpan('invoke_agent planner', {
    startTime: new Date(T0),
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'planner',
      'gen_ai.conversation.id': session,
      'gen_ai.request.model': 'gpt-4o-2024-08-06',
      'gen_ai.prompt': 'Plan a trip to Lisbon',
      'gen_ai.completion': 'Booked.',
      'gen_ai.usage.input_tokens': 1200,
      'gen_ai.usage.output_tokens': 300,
    },
  });
  const ctx = trace.setSpan(context.active(), agent);
  const read = tracer.startSpan(
    'mcp.filesystem.read_file',
    {
      kind: SpanKind.CLIENT,
      startTime: new Date(T0 + 10),
      attributes: {
        'gen_ai.agent.name': 'planner',
        'gen_ai.conversation.id': session,
        'gen_ai.tool.call.arguments': '{"path":"/trips/lisbon.md"}',
        'gen_ai.tool.call.result': '"# Lisbon"',
      },
    },
    ctx,
  );
  read.end(hr(T0 + 35.5));
  const search = tracer.startSpan(
    'execute_tool web_search',
    {
      startTime: new Date(T0 + 40),
      attributes: {
        'gen_ai.tool.name': 'web_search',
        'mcp.server.name': 'search',
        'gen_ai.agent.name': 'planner',
        'gen_ai.conversation.id': session,
        'error.type': 'timeout',
      },
    },
    ctx,
  );
  search.setStatus({ code: SpanStatusCode.ERROR, message: 'deadline exceeded after 500 ms' });
  search.end(new Date(T0 + 540));
  tracer
    .startSpan(
      'GET /healthz',
      { startTime: new Date(T0 + 1), attributes: { 'http.request.method': 'GET' } },
      ctx,
    )
    .end(new Date(T0 + 2));
  agent.end(new Date(T0 + 600));
  await provider.forceFlush();
  await provider.shutdown();
}

const exporters = [
  {
    name: 'OTLP/HTTP JSON',
    make: (s: TestServer) => new HttpJsonExporter({ url: `${s.httpUrl}/v1/traces` }),
  },
  {
    name: 'OTLP/HTTP protobuf',
    make: (s: TestServer) => new HttpProtoExporter({ url: `${s.httpUrl}/api/traces/otlp` }),
  },
  {
    name: 'OTLP/gRPC',
    make: (s: TestServer) => new GrpcExporter({ url: `http://127.0.0.1:${s.grpcPort}` }),
  },
];

describe.each(backends.filter((b) => b.available))(
  'real OpenTelemetry exporters into $name',
  (backend) => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ ...(await backend.env()), SPYGLASS_RATE_LIMITS: 'off' });
    });
    afterAll(async () => server?.dispose());

    it.each(exporters)(
      '$name: every mapped field reads back through GET /api/traces/spans',
      async ({ name, make }) => {
        const session = `otel-${name.replace(/\W+/g, '-')}`;
        await emit(make(server), session);
        const spans = (await getJson(`${server.httpUrl}/api/traces/spans?session_id=${session}`))
          .json as any[];
        expect(spans.map((s) => s.tool_name).sort()).toEqual([
          'invoke_agent planner',
          'read_file',
          'web_search',
        ]);
        const agent = spans.find((s) => s.span_type === 'agent');
        const read = spans.find((s) => s.tool_name === 'read_file');
        const search = spans.find((s) => s.tool_name === 'web_search');
        expect(agent).toMatchObject({
          server_name: 'planner',
          agent_name: 'planner',
          session_id: session,
          project_id: 'default',
          status: 'success',
          error: null,
          parent_span_id: null,
          model_id: 'gpt-4o-2024-08-06',
          llm_input: 'Plan a trip to Lisbon',
          llm_output: 'Booked.',
          input_tokens: 1200,
          output_tokens: 300,
          started_at: '2026-11-20T10:00:00.000Z',
          ended_at: '2026-11-20T10:00:00.600Z',
          latency_ms: 600,
        });
        expect(agent.span_id).toMatch(/^[0-9a-f]{16}$/);
        expect(agent.trace_id).toMatch(/^[0-9a-f]{32}$/);
        expect(agent.cost_usd).toBeCloseTo((1200 * 2.5 + 300 * 10) / 1e6, 9);
        expect(read).toMatchObject({
          span_type: 'tool_call',
          server_name: 'filesystem',
          agent_name: 'planner',
          status: 'success',
          parent_span_id: agent.span_id,
          trace_id: agent.trace_id,
          input_args: { path: '/trips/lisbon.md' },
          output_result: '"# Lisbon"',
          latency_ms: 25.5,
          llm_input: null,
          input_tokens: null,
          model_id: null,
        });
        expect(search).toMatchObject({
          span_type: 'tool_call',
          server_name: 'search',
          status: 'timeout',
          error: 'deadline exceeded after 500 ms',
          parent_span_id: agent.span_id,
          output_result: null,
          latency_ms: 500,
        });
        const session_ = (await getJson(`${server.httpUrl}/api/agents/sessions/${session}`)).json
          .session;
        expect(session_).toMatchObject({
          tool_calls: 2,
          failed_calls: 1,
          health_tag: 'timeout',
          servers_used: ['filesystem', 'search'],
        });
      },
    );
  },
);

describe('OTLP/HTTP bad input', () => {
  let server: TestServer;
  let good: Uint8Array;
  beforeAll(async () => {
    server = await startTestServer({ SPYGLASS_RATE_LIMITS: 'off' });
    // Keeps what it was given: InMemorySpanExporter forgets its spans on shutdown.
    const kept: ReadableSpan[] = [];
    const keeper: SpanExporter = {
      export: (spans, done) => (kept.push(...spans), done({ code: 0 })),
      shutdown: async () => undefined,
    };
    await emit(keeper, 'otlp-bad');
    good = ProtobufTraceSerializer.serializeRequest(kept) as Uint8Array;
    expect(good.length).toBeGreaterThan(100);
  });
  afterAll(async () => server?.dispose());

  const post = (body: BodyInit, type: string, extra: Record<string, string> = {}) =>
    fetch(`${server.httpUrl}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': type, ...extra },
      body,
    }).then(async (r) => ({ status: r.status, body: await r.json().catch(() => null) }));

  it('answers truncated protobuf, garbage, malformed JSON and wrong structure with 400 and a JSON detail', async () => {
    for (const [body, type] of [
      [good.slice(0, good.length - 7), 'application/x-protobuf'],
      [new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2]), 'application/x-protobuf'],
      ['{"resourceSpans": [', 'application/json'],
      ['{"resourceSpans": 5}', 'application/json'],
    ] as const) {
      const res = await post(body as BodyInit, type);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: expect.any(String) });
    }
    expect((await getJson(`${server.httpUrl}/api/traces/spans?session_id=otlp-bad`)).json).toEqual(
      [],
    );
  });

  it('answers a wrong content type with 415, then keeps serving valid gzip protobuf', async () => {
    expect((await post('hello', 'text/plain')).status).toBe(415);
    const ok = await fetch(`${server.httpUrl}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
      body: gzipSync(good),
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/x-protobuf');
    expect(
      (await getJson(`${server.httpUrl}/api/traces/spans?session_id=otlp-bad`)).json,
    ).toHaveLength(3);
  });
});
