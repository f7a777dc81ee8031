import { context, trace, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * One multi-agent task: planner reads a file, hands off to researcher, who searches twice
 * (the first search times out) — sent natively or as real OpenTelemetry spans.
 */
export function nativeMultiAgent(sessionId: string, t0: number) {
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  const base = {
    session_id: sessionId,
    trace_id: `trace-${sessionId}`,
    input_args: null,
    output_result: null,
  };
  return [
    {
      ...base,
      span_id: `${sessionId}-a`,
      span_type: 'agent',
      server_name: 'planner',
      agent_name: 'planner',
      tool_name: 'plan trip',
      started_at: at(0),
      ended_at: at(900),
      status: 'success',
      model_id: 'gpt-4o',
      input_tokens: 1000,
      output_tokens: 200,
    },
    {
      ...base,
      span_id: `${sessionId}-t1`,
      parent_span_id: `${sessionId}-a`,
      server_name: 'filesystem',
      agent_name: 'planner',
      tool_name: 'read_file',
      started_at: at(10),
      ended_at: at(30),
      status: 'success',
    },
    {
      ...base,
      span_id: `${sessionId}-h`,
      parent_span_id: `${sessionId}-a`,
      span_type: 'handoff',
      server_name: 'planner',
      agent_name: 'planner',
      tool_name: '→ researcher',
      started_at: at(40),
      ended_at: at(800),
      status: 'success',
    },
    {
      ...base,
      span_id: `${sessionId}-b`,
      parent_span_id: `${sessionId}-h`,
      span_type: 'agent',
      server_name: 'researcher',
      agent_name: 'researcher',
      tool_name: 'research',
      started_at: at(50),
      ended_at: at(790),
      status: 'success',
    },
    {
      ...base,
      span_id: `${sessionId}-t2`,
      parent_span_id: `${sessionId}-b`,
      server_name: 'search',
      agent_name: 'researcher',
      tool_name: 'web_search',
      started_at: at(60),
      ended_at: at(560),
      status: 'timeout',
      error: 'timeout after 500 ms',
    },
    {
      ...base,
      span_id: `${sessionId}-t3`,
      parent_span_id: `${sessionId}-b`,
      server_name: 'search',
      agent_name: 'researcher',
      tool_name: 'web_search',
      started_at: at(570),
      ended_at: at(700),
      status: 'success',
    },
  ];
}

export async function sendOtlpMultiAgent(
  url: string,
  sessionId: string,
  t0: number,
  headers: Record<string, string> = {},
): Promise<void> {
  const exporter = new OTLPTraceExporter({ url, headers });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'travel-app' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('multi-agent-test');
  const conv = { 'gen_ai.conversation.id': sessionId };
  const span = (
    t: Tracer,
    name: string,
    attrs: Record<string, string | number>,
    start: number,
    end: number,
    parent: ReturnType<typeof context.active>,
    fn?: (ctx: ReturnType<typeof context.active>) => void,
    status?: { error: string },
  ) => {
    const s = t.startSpan(
      name,
      { attributes: { ...conv, ...attrs }, startTime: new Date(t0 + start) },
      parent,
    );
    fn?.(trace.setSpan(parent, s));
    if (status) s.setStatus({ code: SpanStatusCode.ERROR, message: status.error });
    s.end(new Date(t0 + end));
  };
  const root = context.active();
  span(
    tracer,
    'invoke_agent planner',
    {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'planner',
      'gen_ai.agent.description': 'plan trip',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.usage.input_tokens': 1000,
      'gen_ai.usage.output_tokens': 200,
    },
    0,
    900,
    root,
    (a) => {
      span(
        tracer,
        'execute_tool read_file',
        {
          'gen_ai.tool.name': 'read_file',
          'mcp.server.name': 'filesystem',
          'gen_ai.agent.name': 'planner',
        },
        10,
        30,
        a,
      );
      span(
        tracer,
        'handoff researcher',
        {
          'spyglass.span_type': 'handoff',
          'gen_ai.agent.name': 'planner',
          'spyglass.handoff.target': 'researcher',
        },
        40,
        800,
        a,
        (h) => {
          span(
            tracer,
            'invoke_agent researcher',
            {
              'gen_ai.operation.name': 'invoke_agent',
              'gen_ai.agent.name': 'researcher',
              'gen_ai.agent.description': 'research',
            },
            50,
            790,
            h,
            (b) => {
              span(
                tracer,
                'mcp.search.web_search',
                { 'gen_ai.agent.name': 'researcher', 'error.type': 'timeout' },
                60,
                560,
                b,
                undefined,
                { error: 'timeout after 500 ms' },
              );
              span(
                tracer,
                'mcp.search.web_search',
                { 'gen_ai.agent.name': 'researcher' },
                570,
                700,
                b,
              );
            },
          );
        },
      );
    },
  );
  await provider.forceFlush();
  await provider.shutdown();
}
