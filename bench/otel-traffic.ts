/**
 * Real OpenTelemetry exporter traffic for the `otel-real` row (issue 28): spans recorded through
 * the SDK's BasicTracerProvider and sent by the SDK's own OTLPTraceExporter (OTLP/HTTP protobuf or
 * OTLP/gRPC), 16 exports of 512 spans in flight. Each trace is what an agent framework emits for
 * one turn: one `invoke_agent`, three `chat` calls with a ~600-byte prompt and completion each, and
 * four MCP `tools/call` spans, about 20 attributes per span, one conversation (session) per trace.
 *
 * One batch of 512 spans is recorded through a real tracer once; every export sends a copy of it
 * with fresh trace, span and conversation ids and times shifted to the send time, so the bench's
 * own CPU goes to the exporter (serialisation, transport) and not to re-recording identical spans.
 */
import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type HrTime,
  type SpanContext,
} from '@opentelemetry/api';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

export type OtelProtocol = 'otlp-proto' | 'otlp-grpc';
export const OTEL_PROTOCOLS: readonly OtelProtocol[] = ['otlp-proto', 'otlp-grpc'];

const MODEL = 'gpt-4o-mini';
const TOOLS = [
  ['filesystem', 'read_file'],
  ['github', 'search_issues'],
  ['filesystem', 'list_directory'],
  ['github', 'get_issue'],
] as const;

const RESULT = JSON.stringify({
  content: [
    {
      type: 'text',
      text: 'export async function retrySync(attempt: number) {\n  // backoff doubles up to 30 s\n  const delay = Math.min(30_000, 2 ** attempt * 100);\n  await sleep(delay);\n  return engine.sync();\n}\n',
    },
  ],
  isError: false,
});

/** ~600 bytes of chat messages (gen_ai.input.messages / gen_ai.output.messages JSON). */
function messages(role: 'user' | 'assistant', turn: number): string {
  const text =
    role === 'user'
      ? `Turn ${turn}: summarise the open issues tagged bug in acme/widgets, group them by component, and propose a fix order with a one-line reason for each. Prefer issues with a reproduction. Skip anything labelled wontfix or duplicate, and flag issues older than 90 days without activity so that the triage rotation can close them. Reply in Markdown, no more than twelve bullet points, and link each issue by its number. If two issues look like the same bug, say which one to keep open and why, citing the stack traces in their descriptions.`
      : `Turn ${turn}: there are 12 open bugs. Sync engine: fix the retry loop first (#812, #790: both reproduce, data loss risk), then the cache eviction race (#771). UI: the date picker off-by-one (#802) and the dark-mode contrast issue (#765) are quick wins. Stale over 90 days: #512, #498, #455 (no reproduction). The rest are cosmetic and can wait for the next milestone. Duplicates: #788 repeats #771 (same stack trace in evictStale), keep #771 open since it has the reproduction and the bisect result.`;
  return JSON.stringify([{ role, parts: [{ type: 'text', content: text }] }]);
}

/** One batch recorded through a real tracer: traces of 8 spans until `size` spans. */
export function recordBatch(size: number): ReadableSpan[] {
  const kept: ReadableSpan[] = [];
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': 'support-agent',
      'service.version': '1.4.2',
      'deployment.environment.name': 'production',
    }),
    spanProcessors: [
      {
        onStart: () => undefined,
        onEnd: (s) => void kept.push(s),
        forceFlush: async () => undefined,
        shutdown: async () => undefined,
      },
    ],
  });
  const tracer = provider.getTracer('@acme/agent-instrumentation', '0.9.0');
  const base = Date.parse('2026-01-01T00:00:00Z');
  for (let t = 0; kept.length < size; t++) {
    const at = (ms: number) => new Date(base + t * 10 + ms);
    const common = {
      'gen_ai.agent.name': 'support',
      'gen_ai.agent.id': 'asst_support_01',
      'gen_ai.conversation.id': 'template',
    };
    const agent = tracer.startSpan('invoke_agent support', {
      kind: SpanKind.INTERNAL,
      startTime: at(0),
      attributes: {
        ...common,
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': MODEL,
        'gen_ai.agent.description': 'Triage assistant for the acme/widgets repository',
        'gen_ai.usage.input_tokens': 3600,
        'gen_ai.usage.output_tokens': 540,
        'gen_ai.request.temperature': 0.2,
        'gen_ai.request.max_tokens': 1024,
        'server.address': 'api.openai.com',
        'server.port': 443,
        'user.id': 'u_8812',
        'enduser.pseudo.id': 'p_77a1',
        'app.tenant': 'acme',
        'app.release': '2026.11.3',
        'code.function.name': 'runTurn',
        'thread.id': 1,
        'process.runtime.name': 'nodejs',
      },
    });
    const parent = trace.setSpan(context.active(), agent);
    for (let c = 0; c < 3; c++) {
      const chat = tracer.startSpan(
        `chat ${MODEL}`,
        {
          kind: SpanKind.CLIENT,
          startTime: at(1 + c * 3),
          attributes: {
            ...common,
            'gen_ai.operation.name': 'chat',
            'gen_ai.provider.name': 'openai',
            'gen_ai.request.model': MODEL,
            'gen_ai.response.model': `${MODEL}-2024-07-18`,
            'gen_ai.response.id': `chatcmpl-B7x${String(t * 3 + c).padStart(9, '0')}Qz`,
            'gen_ai.response.finish_reasons': ['stop'],
            'gen_ai.usage.input_tokens': 1200,
            'gen_ai.usage.output_tokens': 180,
            'gen_ai.request.temperature': 0.2,
            'gen_ai.request.max_tokens': 1024,
            'gen_ai.input.messages': messages('user', c),
            'gen_ai.output.messages': messages('assistant', c),
            'server.address': 'api.openai.com',
            'server.port': 443,
            'gen_ai.request.top_p': 1,
            'gen_ai.output.type': 'text',
          },
        },
        parent,
      );
      chat.end(at(3 + c * 3));
    }
    for (let k = 0; k < 4; k++) {
      const [server, tool] = TOOLS[k] as (typeof TOOLS)[number];
      const failed = k === 3 && t % 8 === 0;
      const call = tracer.startSpan(
        `tools/call ${tool}`,
        {
          kind: SpanKind.CLIENT,
          startTime: at(2 + k * 2),
          attributes: {
            ...common,
            'mcp.method.name': 'tools/call',
            'mcp.server.name': server,
            'mcp.session.id': `mcp-${server}-01`,
            'mcp.protocol.version': '2025-06-18',
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': tool,
            'gen_ai.tool.type': 'extension',
            'gen_ai.tool.call.id': `call_${String(t * 4 + k).padStart(8, '0')}aZ3kQ`,
            'gen_ai.tool.call.arguments': `{"path":"/srv/data/acme/widgets/src/sync/engine-${k}.ts","repo":"acme/widgets"}`,
            'gen_ai.tool.call.result': failed ? '' : RESULT,
            'jsonrpc.request.id': String(t * 4 + k),
            'network.transport': 'pipe',
            'rpc.system': 'jsonrpc',
            'server.address': `${server}.mcp.internal`,
          },
        },
        parent,
      );
      if (failed) call.setStatus({ code: SpanStatusCode.ERROR, message: 'issue not found' });
      call.end(at(3 + k * 2));
    }
    agent.end(at(10));
  }
  return kept.slice(0, size);
}

/** A ReadableSpan's fields as a plain object (the SDK's getters do not survive a spread). */
interface PlainSpan {
  template: ReadableSpan;
  parentIndex: number;
  traceIndex: number;
  startMs: number;
  endMs: number;
}

const hrOf = (ms: number): HrTime => [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)];
const msOf = (t: HrTime) => t[0] * 1000 + t[1] / 1e6;

/** Makes exports of the recorded batch with fresh ids (unique across the run) and current times. */
export class BatchFactory {
  private readonly spans: PlainSpan[];
  private readonly traces: number;
  private seq = 0;
  private readonly prefix = Math.floor(Math.random() * 0xffffff)
    .toString(16)
    .padStart(6, '0');
  readonly bytesPerSpan: number;

  constructor(readonly size: number) {
    const recorded = recordBatch(size);
    const index = new Map(recorded.map((s, i) => [s.spanContext().spanId, i]));
    const traceIds = [...new Set(recorded.map((s) => s.spanContext().traceId))];
    const t0 = Math.min(...recorded.map((s) => msOf(s.startTime)));
    this.traces = traceIds.length;
    this.spans = recorded.map((s) => ({
      template: s,
      parentIndex: index.get(s.parentSpanContext?.spanId ?? '') ?? -1,
      traceIndex: traceIds.indexOf(s.spanContext().traceId),
      startMs: msOf(s.startTime) - t0,
      endMs: msOf(s.endTime) - t0,
    }));
    const bytes = ProtobufTraceSerializer.serializeRequest(this.next()) as Uint8Array;
    this.bytesPerSpan = bytes.length / size;
  }

  /** One export's spans. */
  next(): ReadableSpan[] {
    const base = Date.now() - 1_000;
    const first = this.seq;
    this.seq += this.spans.length;
    const session = (first / this.spans.length) * this.traces;
    const id = (n: number, len: number) => this.prefix + n.toString(16).padStart(len - 6, '0');
    const contexts = this.spans.map((p, i): SpanContext => ({
      traceId: id(first + p.traceIndex + 1, 32),
      spanId: id(first + i + 1, 16),
      traceFlags: 1,
    }));
    return this.spans.map((p, i) => {
      const s = p.template;
      const ctx = contexts[i] as SpanContext;
      const startTime = hrOf(base + p.startMs);
      const endTime = hrOf(base + p.endMs);
      return {
        name: s.name,
        kind: s.kind,
        spanContext: () => ctx,
        parentSpanContext: p.parentIndex >= 0 ? contexts[p.parentIndex] : undefined,
        startTime,
        endTime,
        status: s.status,
        attributes: {
          ...s.attributes,
          'gen_ai.conversation.id': `conv-${this.prefix}-${session + p.traceIndex}`,
        },
        links: s.links,
        events: s.events,
        duration: s.duration,
        ended: true,
        resource: s.resource,
        instrumentationScope: s.instrumentationScope,
        droppedAttributesCount: 0,
        droppedEventsCount: 0,
        droppedLinksCount: 0,
      } satisfies ReadableSpan;
    });
  }
}

export function makeExporter(
  protocol: OtelProtocol,
  httpPort: number,
  grpcPort: number,
  timeoutMs: number,
): SpanExporter {
  // concurrencyLimit above the bench's 16: the exporter refuses exports past its limit.
  const common = { timeoutMillis: timeoutMs, concurrencyLimit: 64 };
  return protocol === 'otlp-proto'
    ? new ProtoExporter({ url: `http://127.0.0.1:${httpPort}/v1/traces`, ...common })
    : new GrpcExporter({ url: `http://127.0.0.1:${grpcPort}`, ...common });
}

export interface ExportRun {
  /** Spans acknowledged (export result SUCCESS) inside the measured window. */
  spans: number;
  /** Spans acknowledged at any time: what must be in the database. */
  ackedTotal: number;
  failedExports: number;
  windowMs: number;
  p50Ms: number;
  p95Ms: number;
}

/**
 * `concurrency` exports in flight, each worker starting its next as soon as the previous is
 * answered; `onWindow` is called when the warm-up ends and when the measured window ends.
 */
export async function driveExports(
  exporter: SpanExporter,
  factory: BatchFactory,
  o: { concurrency: number; warmupMs: number; durationMs: number },
  onWindow: (edge: 'start' | 'end') => void,
): Promise<ExportRun> {
  const started = performance.now();
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.POSITIVE_INFINITY;
  let spans = 0;
  let ackedTotal = 0;
  let failedExports = 0;
  const latencies: number[] = [];
  const startTimer = setTimeout(() => {
    windowStart = performance.now();
    onWindow('start');
  }, o.warmupMs);
  const endTimer = setTimeout(() => {
    windowEnd = performance.now();
    onWindow('end');
  }, o.warmupMs + o.durationMs);
  const worker = async () => {
    while (performance.now() - started < o.warmupMs + o.durationMs) {
      const batch = factory.next();
      const t = performance.now();
      const ok = await new Promise<boolean>((resolve) =>
        // ExportResultCode.SUCCESS is 0.
        exporter.export(batch, (r) => resolve(r.code === 0)),
      );
      const done = performance.now();
      if (!ok) {
        failedExports++;
        continue;
      }
      ackedTotal += batch.length;
      if (done >= windowStart && done <= windowEnd) {
        spans += batch.length;
        latencies.push(done - t);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: o.concurrency }, worker));
  } finally {
    clearTimeout(startTimer);
    clearTimeout(endTimer);
  }
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? Number.NaN;
  return {
    spans,
    ackedTotal,
    failedExports,
    windowMs: windowEnd - windowStart,
    p50Ms: pct(0.5),
    p95Ms: pct(0.95),
  };
}
