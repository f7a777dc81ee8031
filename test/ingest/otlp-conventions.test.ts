import {
  context,
  diag,
  DiagLogLevel,
  SpanStatusCode,
  trace,
  type Context,
} from '@opentelemetry/api';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as HttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as HttpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONVENTIONS, expectedLlm, type ConventionFixture } from '../fixtures/otel-conventions.ts';
import { captureLog } from '../helpers/log-capture.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getJson } from '../helpers/spans.ts';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const METRICS_TOKEN = 'conventions-metrics-token';

/** Records a fixture's spans with the OpenTelemetry SDK (parents through contexts), unexported. */
async function record(f: ConventionFixture): Promise<ReadableSpan[]> {
  const kept: ReadableSpan[] = [];
  const keeper: SpanExporter = {
    export: (spans, done) => (kept.push(...spans), done({ code: 0 })),
    shutdown: async () => undefined,
  };
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': f.service }),
    spanProcessors: [new SimpleSpanProcessor(keeper)],
  });
  const tracer = provider.getTracer(f.convention);
  const contexts = new Map<string, Context>();
  const open = f.spans.map((s) => {
    const span = tracer.startSpan(
      s.name,
      { startTime: new Date(T0 + s.start), attributes: s.attributes },
      s.parent ? contexts.get(s.parent) : context.active(),
    );
    contexts.set(s.name, trace.setSpan(context.active(), span));
    if (s.error) span.setStatus({ code: SpanStatusCode.ERROR, message: s.error });
    return { span, end: s.end };
  });
  for (const { span, end } of open.reverse()) span.end(new Date(T0 + end));
  await provider.shutdown();
  return kept;
}

/** Sends the spans in ONE export request through a real exporter, as a batch processor would. */
async function send(exporter: SpanExporter, spans: ReadableSpan[]): Promise<void> {
  const result = await new Promise<{ code: number; error?: Error }>((resolve) =>
    exporter.export(spans, resolve),
  );
  expect(result.error).toBeUndefined();
  expect(result.code).toBe(0);
  await exporter.shutdown();
}

/** Partial-success warnings the OpenTelemetry SDK logs (what a user of the exporter sees). */
const warnings: string[] = [];

const exporters = [
  {
    name: 'OTLP/HTTP JSON',
    make: (s: TestServer) => new HttpJsonExporter({ url: `${s.httpUrl}/v1/traces` }),
  },
  {
    name: 'OTLP/HTTP protobuf',
    make: (s: TestServer) => new HttpProtoExporter({ url: `${s.httpUrl}/v1/traces` }),
  },
  {
    name: 'OTLP/gRPC',
    make: (s: TestServer) => new GrpcExporter({ url: `http://127.0.0.1:${s.grpcPort}` }),
  },
];

describe('OpenTelemetry GenAI conventions through real exporters', () => {
  let server: TestServer;
  const log = captureLog();
  beforeAll(async () => {
    server = await startTestServer(
      { SPYGLASS_RATE_LIMITS: 'off', SPYGLASS_METRICS_TOKEN: METRICS_TOKEN },
      log.logger,
    );
    diag.setLogger(
      {
        warn: (...args: unknown[]) => warnings.push(args.map(String).join(' ')),
        error: () => {},
        info: () => {},
        debug: () => {},
        verbose: () => {},
      },
      DiagLogLevel.WARN,
    );
  });
  afterAll(async () => {
    diag.disable();
    await server?.dispose();
  });

  describe.each(exporters)('$name', ({ name, make }) => {
    it.each(CONVENTIONS.map((c) => [c(name).convention, c] as const))(
      '%s: the LLM span is stored priced, the tool span as a tool call, and the rest is reported',
      async (_label, fixture) => {
        const session = `conv-${name}-${_label}`.replace(/\W+/g, '-');
        const f = fixture(session);
        const before = warnings.length;
        await send(make(server), await record(f));

        const stored = (
          await getJson(`${server.httpUrl}/api/traces/spans?session_id=${session}&limit=100`)
        ).json as any[];
        const byName = (tool: string) => stored.find((s) => s.tool_name === tool);
        const want = expectedLlm(f.llm);
        const llm = stored.find(
          (s) => s.model_id === f.llm.model && s.input_tokens === want.inputTokens,
        );
        expect(llm, `${f.llm.name} stored`).toMatchObject({
          span_type: 'agent',
          output_tokens: f.llm.output,
          cost_estimated: false,
          agent_name: f.llm.agent,
          server_name: f.llm.agent,
          cache_read_tokens: f.llm.cacheRead ?? null,
          cache_creation_tokens: f.llm.cacheWrite ?? null,
        });
        expect(llm.cost_usd).toBeCloseTo(want.costUsd, 12);
        expect(llm.llm_input).toBeTruthy();
        expect(llm.llm_output).toBeTruthy();
        if (f.tool.toolName)
          expect(byName(f.tool.toolName)).toMatchObject({
            span_type: 'tool_call',
            status: 'success',
          });
        // Every stored span of the run shares its trace; nothing that is not agent, LLM or tool got in.
        expect(new Set(stored.map((s) => s.trace_id)).size).toBe(1);
        for (const plain of f.plain)
          expect(stored.find((s) => s.tool_name === plain)).toBeUndefined();
        expect(stored).toHaveLength(f.spans.length - f.plain.length);

        const warning = warnings.slice(before).find((w) => w.includes('Partial Success'));
        expect(warning).toContain(
          `${f.plain.length} span(s) not stored: not agent, LLM or tool spans`,
        );
        expect(warning).toContain('docs/ingest.md#otlp-span-selection');
        expect(warning).not.toMatch(/"rejectedSpans":"?[1-9]/);
      },
    );
  });

  it('OpenInference and OpenLLMetry runs become session trees with their agents', async () => {
    const oi = (
      await getJson(
        `${server.httpUrl}/api/traces/spans?session_id=conv-OTLP-HTTP-JSON-OpenInference&limit=100`,
      )
    ).json as any[];
    const agent = oi.find((s) => s.tool_name === 'TripAgent');
    expect(agent).toMatchObject({
      span_type: 'agent',
      agent_name: 'oi-trip-agent',
      parent_span_id: null,
    });
    const chain = oi.find((s) => s.tool_name === 'RunnableSequence');
    // The chain, the LLM call and the tool call name no agent: they are the agent's they run under.
    expect(chain).toMatchObject({ parent_span_id: agent.span_id, agent_name: 'oi-trip-agent' });
    expect(oi.find((s) => s.tool_name === 'get_weather')?.agent_name).toBe('oi-trip-agent');
    expect(oi.find((s) => s.tool_name === 'get_weather')).toMatchObject({
      parent_span_id: chain.span_id,
      input_args: { city: 'Lisbon' },
      output_result: 'sunny',
    });
    expect(oi.find((s) => s.tool_name === 'VectorStoreRetriever')).toMatchObject({
      span_type: 'tool_call',
      parent_span_id: chain.span_id,
    });
    expect(oi.find((s) => s.model_id === 'text-embedding-3-small')).toMatchObject({
      span_type: 'agent',
      input_tokens: 12,
      output_tokens: null,
    });

    const tl = (
      await getJson(
        `${server.httpUrl}/api/traces/spans?session_id=conv-OTLP-HTTP-JSON-OpenLLMetry&limit=100`,
      )
    ).json as any[];
    expect(tl.find((s) => s.tool_name === 'search_flights')).toMatchObject({
      span_type: 'tool_call',
      agent_name: 'trip_planner',
      input_args: { args: [], kwargs: { to: 'LIS' } },
    });
    expect(tl.find((s) => s.model_id === 'claude-3-5-haiku-20241022')).toMatchObject({
      span_type: 'agent',
      input_tokens: 300,
      output_tokens: 20,
      agent_name: 'trip_planner',
    });
    const sessionRow = (
      await getJson(`${server.httpUrl}/api/agents/sessions/conv-OTLP-HTTP-JSON-OpenLLMetry`)
    ).json.session;
    expect(sessionRow).toMatchObject({ agent_name: 'trip_planner', tool_calls: 1 });
    // gpt-4o-mini: 904 uncached input, 4,096 cached at the cache-read price; then the haiku call.
    expect(sessionRow.est_cost_usd).toBeCloseTo(
      (904 * 0.15 + 4096 * 0.075 + 400 * 0.6) / 1e6 + (300 * 0.8 + 20 * 4) / 1e6,
      6,
    ); // sessions round to 6 places
  });

  it('counts the spans it did not store in spyglass_otlp_spans_ignored_total and logs once a minute per project', async () => {
    const res = await fetch(`${server.httpUrl}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    const ignoredPerRun = CONVENTIONS.reduce((n, c) => n + c('x').plain.length, 0);
    expect(await res.text()).toMatch(
      new RegExp(`^spyglass_otlp_spans_ignored_total ${ignoredPerRun * exporters.length}$`, 'm'),
    );
    const lines = log.lines.filter((l) => l.msg?.startsWith('OTLP spans ignored'));
    // Twelve exports, every one with spans ignored, all for the default project: a line a minute, not one per export.
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.length).toBeLessThan(12);
    expect(lines[0]).toMatchObject({
      project_id: 'default',
      ignored_spans: expect.any(Number),
      doc: 'docs/ingest.md#otlp-span-selection',
      level: 30,
    });
  });
});
