import { Client, Metadata, credentials, type ServiceError } from '@grpc/grpc-js';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRACE_EXPORT_PATH } from '../../src/receivers/otlp-grpc.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getJson } from '../helpers/spans.ts';

/**
 * OTLP keeps the good spans of a request and reports the others in partial_success, on every
 * transport; bad data never turns into 503 (which exporters retry, then drop the whole batch).
 */

const deepJson = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** Two storable spans (one with a lone surrogate), two that are not, one plain HTTP span. */
async function mixedSpans(session: string): Promise<ReadableSpan[]> {
  const kept: ReadableSpan[] = [];
  const keeper: SpanExporter = {
    export: (spans, done) => (kept.push(...spans), done({ code: 0 })),
    shutdown: async () => undefined,
  };
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'bad-agent' }),
    spanProcessors: [new SimpleSpanProcessor(keeper)],
  });
  const tracer = provider.getTracer('bad-data');
  const at = { 'gen_ai.conversation.id': session };
  tracer
    .startSpan('mcp.fs.read_file', {
      attributes: { ...at, 'gen_ai.tool.call.arguments': '{"path":"/a"}' },
    })
    .end();
  tracer
    .startSpan('execute_tool', { attributes: { ...at, 'gen_ai.tool.name': 'lone\ud800' } })
    .end();
  tracer
    .startSpan('chat', {
      attributes: { ...at, 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 2 ** 31 },
    })
    .end();
  tracer
    .startSpan('execute_tool', {
      attributes: {
        ...at,
        'gen_ai.tool.name': 'deep',
        'gen_ai.tool.call.arguments': deepJson(10_000),
      },
    })
    .end();
  tracer.startSpan('GET /health', { attributes: { 'http.request.method': 'GET' } }).end();
  await provider.shutdown();
  return kept;
}

/** The OTLP/JSON form, plus two spans only JSON can spell: a start time past year 9999 and attributes nested 40 deep. */
async function mixedJson(session: string): Promise<string> {
  const req = JSON.parse(
    new TextDecoder().decode(JsonTraceSerializer.serializeRequest(await mixedSpans(session))),
  );
  const spans = req.resourceSpans[0].scopeSpans[0].spans as any[];
  const good = spans.find((s) => s.name === 'mcp.fs.read_file');
  let nested: any = { stringValue: 'bottom' };
  for (let i = 0; i < 40; i++) nested = { kvlistValue: { values: [{ key: 'k', value: nested }] } };
  spans.push(
    { ...good, spanId: 'a1a1a1a1a1a1a1a1', startTimeUnixNano: 1e300 },
    {
      ...good,
      spanId: 'b2b2b2b2b2b2b2b2',
      attributes: [...good.attributes, { key: 'x', value: nested }],
    },
  );
  return JSON.stringify(req);
}

function grpcExport(
  port: number,
  payload: Uint8Array,
): Promise<{ response?: Buffer; error?: ServiceError }> {
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  const pass = (b: Buffer) => b;
  return new Promise<{ response?: Buffer; error?: ServiceError }>((resolve) => {
    client.makeUnaryRequest(
      TRACE_EXPORT_PATH,
      pass,
      pass,
      Buffer.from(payload),
      new Metadata(),
      (error, response) => resolve(error ? { error } : { response: response ?? Buffer.alloc(0) }),
    );
  }).finally(() => client.close());
}

describe('OTLP requests mixing good and bad spans', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ SPYGLASS_RATE_LIMITS: 'off' });
  });
  afterAll(async () => server?.dispose());

  const stored = async (session: string) =>
    ((await getJson(`${server.httpUrl}/api/traces/spans?session_id=${session}`)).json as any[])
      .map((s) => s.tool_name)
      .sort();
  const post = (body: BodyInit, type: string) =>
    fetch(`${server.httpUrl}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': type },
      body,
    });

  it('OTLP/HTTP JSON: stores the good spans, reports each rejected span and why in partialSuccess', async () => {
    const res = await post(await mixedJson('mixed-json'), 'application/json');
    expect(res.status).toBe(200);
    const { partialSuccess } = (await res.json()) as {
      partialSuccess: { rejectedSpans: string; errorMessage: string };
    };
    expect(partialSuccess.rejectedSpans).toBe('4');
    expect(partialSuccess.errorMessage).toMatch(/^4 span\(s\) rejected: /);
    expect(partialSuccess.errorMessage).toContain(
      'input_tokens: Input should be an integer from 0 to 2147483647',
    );
    expect(partialSuccess.errorMessage).toContain(
      'input_args: Input should nest at most 32 levels',
    );
    expect(partialSuccess.errorMessage).toContain(
      'span a1a1a1a1a1a1a1a1: started_at: Input should be a datetime from year 1 to 9999',
    );
    expect(partialSuccess.errorMessage).toContain(
      'span b2b2b2b2b2b2b2b2: attributes: values nested deeper than 32',
    );
    expect(await stored('mixed-json')).toEqual(['lone\uFFFD', 'read_file']);
  });

  it('OTLP/HTTP protobuf: the same, in an ExportTraceServiceResponse', async () => {
    const res = await post(
      Buffer.from(ProtobufTraceSerializer.serializeRequest(await mixedSpans('mixed-proto'))!),
      'application/x-protobuf',
    );
    expect(res.status).toBe(200);
    const { partialSuccess } = ProtobufTraceSerializer.deserializeResponse(
      new Uint8Array(await res.arrayBuffer()),
    );
    expect(Number(partialSuccess?.rejectedSpans)).toBe(2);
    expect(partialSuccess?.errorMessage).toContain('input_tokens');
    expect(await stored('mixed-proto')).toEqual(['lone\uFFFD', 'read_file']);
  });

  it('OTLP/gRPC: OK with partial_success, never UNAVAILABLE', async () => {
    const { response, error } = await grpcExport(
      server.grpcPort!,
      ProtobufTraceSerializer.serializeRequest(await mixedSpans('mixed-grpc'))!,
    );
    expect(error).toBeUndefined();
    const { partialSuccess } = ProtobufTraceSerializer.deserializeResponse(
      new Uint8Array(response!),
    );
    expect(Number(partialSuccess?.rejectedSpans)).toBe(2);
    expect(partialSuccess?.errorMessage).toContain(
      'input_args: Input should nest at most 32 levels',
    );
    expect(await stored('mixed-grpc')).toEqual(['lone\uFFFD', 'read_file']);
  });

  it('answers 404 when a global key names a project that does not exist, and stores nothing', async () => {
    const spans = await mixedSpans('ghost-otlp');
    const req = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)));
    req.resourceSpans[0].resource.attributes.push({
      key: 'spyglass.project_id',
      value: { stringValue: 'ghost-otlp' },
    });
    const res = await post(JSON.stringify(req), 'application/json');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      detail: expect.stringContaining('project "ghost-otlp" does not exist'),
    });
    expect(await stored('ghost-otlp')).toEqual([]);
  });
});
