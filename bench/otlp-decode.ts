/**
 * OTLP decode throughput: OTLP/JSON (JSON.parse + decodeOtlpJson) vs protobuf (decodeOtlpProtobuf),
 * on payloads the OpenTelemetry JS serializers produce for agent-like spans (~10 attributes each).
 *
 *   node --import tsx bench/otlp-decode.ts
 */
import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { decodeOtlpJson } from '../src/receivers/otlp-json.ts';
import { decodeOtlpProtobuf } from '../src/receivers/otlp-protobuf.ts';

const BATCH_SIZES = [25, 500];
const WARMUP_MS = 500;
const MEASURE_MS = 2000;

async function recordAgentSpans(count: number): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': 'support-agent',
      'service.version': '1.4.2',
      'host.name': 'worker-7',
    }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('bench', '1.0.0');
  const root = tracer.startSpan('invoke_agent support');
  const parent = trace.setSpan(context.active(), root);
  for (let i = 0; i < count - 1; i++) {
    const span = tracer.startSpan(
      i % 2 ? 'chat gpt-4o-mini' : 'execute_tool search_docs',
      {
        attributes: {
          'gen_ai.system': 'openai',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.usage.input_tokens': 1200 + i,
          'gen_ai.usage.output_tokens': 87,
          'gen_ai.request.temperature': 0.2,
          'gen_ai.response.finish_reasons': ['stop'],
          'gen_ai.tool.name': 'search_docs',
          'gen_ai.conversation.id': `conv-${i % 13}`,
          'http.response.status_code': 200,
          'tool.cached': i % 3 === 0,
        },
      },
      parent,
    );
    if (i % 20 === 0) span.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream timeout' });
    span.end();
  }
  root.end();
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans(); // before shutdown, which empties the exporter
  await provider.shutdown();
  return spans;
}

/** Runs fn for a fixed wall time after a warm-up; returns ms per call. */
function timePerCall(fn: () => unknown): number {
  for (const start = performance.now(); performance.now() - start < WARMUP_MS;) fn();
  let calls = 0;
  const start = performance.now();
  while (performance.now() - start < MEASURE_MS) {
    fn();
    calls++;
  }
  return (performance.now() - start) / calls;
}

function report(label: string, spans: number, bytes: number, msPerBatch: number): void {
  const perSecond = Math.round((spans / msPerBatch) * 1000).toLocaleString('en');
  console.log(
    `${label.padEnd(10)} ${String(spans).padStart(4)} spans  ${String(bytes).padStart(7)} B  ${msPerBatch.toFixed(3).padStart(7)} ms/batch  ${perSecond.padStart(9)} spans/s`,
  );
}

async function runBench(): Promise<void> {
  console.log(
    `node ${process.version}; each figure is ${MEASURE_MS} ms of repeated decodes after ${WARMUP_MS} ms warm-up`,
  );
  for (const size of BATCH_SIZES) {
    const spans = await recordAgentSpans(size);
    const json = Buffer.from(JsonTraceSerializer.serializeRequest(spans)!).toString('utf8');
    const protobuf = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);
    const decoded = decodeOtlpProtobuf(protobuf).resourceSpans.reduce(
      (n, rs) => n + rs.spans.length,
      0,
    );
    if (decoded !== size)
      throw new Error(`expected ${size} spans in the payload, decoded ${decoded}`);
    report(
      'otlp/json',
      size,
      Buffer.byteLength(json),
      timePerCall(() => decodeOtlpJson(JSON.parse(json))),
    );
    report(
      'protobuf',
      size,
      protobuf.length,
      timePerCall(() => decodeOtlpProtobuf(protobuf)),
    );
  }
}

await runBench();
