import http2 from 'node:http2';
import { gzipSync } from 'node:zlib';
import { Client, Metadata, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SpyglassError } from '../../src/errors.ts';
import { CpuSlices } from '../../src/ingest/cpu-slices.ts';
import {
  TRACE_EXPORT_PATH,
  startOtlpGrpcServer,
  type GrpcReceiver,
  type GrpcReceiverOptions,
} from '../../src/receivers/otlp-grpc.ts';
import { CONNECTION_WINDOW, STREAM_WINDOW } from '../../src/receivers/grpc-windows.ts';
import type { DecodedExport, ExportOutcome } from '../../src/model/otlp.ts';

type OnExport = (
  req: DecodedExport,
  meta: { metadata: Record<string, string>; peer: string },
) => Promise<ExportOutcome>;
const admitAll = async () => undefined;
type ExporterConfig = NonNullable<ConstructorParameters<typeof OTLPTraceExporter>[0]>;
interface Received {
  req: DecodedExport;
  metadata: Record<string, string>;
  peer: string;
}

const ACCEPTED: ExportOutcome = { rejectedSpans: 0, errorMessage: '' };

/** Records spans with a tracer whose processor sends them through `exporter`. */
async function sendSpans(exporter: OTLPTraceExporter, names: string[]): Promise<void> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'grpc-test' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('grpc-test');
  for (const name of names) tracer.startSpan(name, { attributes: { 'tool.name': name } }).end();
  await provider.forceFlush();
  await provider.shutdown(); // also shuts the exporter (and its channel) down
}

async function makeProtobuf(count: number): Promise<Buffer> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  for (let i = 0; i < count; i++) provider.getTracer('raw').startSpan(`span ${i}`).end();
  await provider.forceFlush();
  const spans: ReadableSpan[] = memory.getFinishedSpans();
  return Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);
}

/** A raw unary call with identity serialisers, so the test controls the exact bytes sent. */
function callExport(
  client: Client,
  payload: Buffer,
): Promise<{ response?: Buffer; error?: ServiceError }> {
  return new Promise((resolve) => {
    const passBuffer = (b: Buffer) => b;
    client.makeUnaryRequest(
      TRACE_EXPORT_PATH,
      passBuffer,
      passBuffer,
      payload,
      new Metadata(),
      (error, response) => resolve(error ? { error } : { response: response ?? Buffer.alloc(0) }),
    );
  });
}

/** Sends one gRPC message with the compressed flag set and gzip body; resolves to grpc-status. */
function postGzipFrame(port: number, payload: Buffer): Promise<string> {
  const body = gzipSync(payload);
  const frame = Buffer.concat([Buffer.from([1, 0, 0, 0, 0]), body]);
  frame.writeUInt32BE(body.length, 1);
  const session = http2.connect(`http://127.0.0.1:${port}`);
  return new Promise<string>((resolve, reject) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': TRACE_EXPORT_PATH,
      'content-type': 'application/grpc',
      te: 'trailers',
      'grpc-encoding': 'gzip',
    });
    stream.on('trailers', (trailers) => resolve(String(trailers['grpc-status'])));
    stream.on('error', reject);
    stream.resume();
    stream.end(frame);
  }).finally(() => session.close());
}

describe('OTLP/gRPC receiver', () => {
  const received: Received[] = [];
  const internalErrors: unknown[] = [];
  let behaviour: OnExport = async () => ACCEPTED;
  let admission: GrpcReceiverOptions['admit'] = admitAll;
  let server: GrpcReceiver;
  let client: Client;

  beforeAll(async () => {
    server = await startOtlpGrpcServer({
      host: '127.0.0.1',
      port: 0,
      slices: new CpuSlices(),
      maxMessageBytes: 4 * 1024 * 1024,
      admit: async (meta) => admission(meta),
      onExport: async (req, _admitted, meta) => {
        received.push({ req, ...meta });
        return behaviour(req, meta);
      },
      onInternalError: (err) => internalErrors.push(err),
    });
    client = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure());
  });

  afterEach(() => {
    received.length = 0;
    behaviour = async () => ACCEPTED;
    admission = admitAll;
  });

  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  it('receives spans from the real OTLPTraceExporter, with its metadata', async () => {
    const metadata = new Metadata();
    metadata.set('X-Api-Key', 'sk-test-123');
    await sendSpans(new OTLPTraceExporter({ url: `http://127.0.0.1:${server.port}`, metadata }), [
      'search',
      'fetch',
    ]);

    expect(received.length).toBeGreaterThan(0); // SimpleSpanProcessor exports span by span
    for (const { req, metadata: md, peer } of received) {
      expect(md['x-api-key']).toBe('sk-test-123');
      expect(peer).toContain('127.0.0.1');
      expect(req.resourceSpans[0]!.resource['service.name']).toBe('grpc-test');
    }
    const spans = received.flatMap((r) => r.req.resourceSpans.flatMap((rs) => rs.spans));
    expect(spans.map((s) => s.name)).toEqual(['search', 'fetch']);
    expect(spans[0]!.attributes).toEqual({ 'tool.name': 'search' });
    expect(spans[0]!.spanId).toMatch(/^[0-9a-f]{16}$/);
  });

  it('accepts gzip-compressed exports', async () => {
    const compression = 'gzip' as ExporterConfig['compression'];
    await sendSpans(
      new OTLPTraceExporter({ url: `http://127.0.0.1:${server.port}`, compression }),
      ['zipped'],
    );
    expect(
      received.flatMap((r) => r.req.resourceSpans.flatMap((rs) => rs.spans.map((s) => s.name))),
    ).toEqual(['zipped']);
  });

  it('decompresses a gzip-flagged message frame (checked at the HTTP/2 level)', async () => {
    const payload = await makeProtobuf(4);
    const grpcStatus = await postGzipFrame(server.port, payload);
    expect(grpcStatus).toBe(String(status.OK));
    expect(received[0]!.req.resourceSpans[0]!.spans).toHaveLength(4);
  });

  it('answers partial_success from the handler outcome', async () => {
    behaviour = async () => ({ rejectedSpans: 2, errorMessage: 'not agent spans' });
    const { response, error } = await callExport(client, await makeProtobuf(3));
    expect(error).toBeUndefined();
    // partial_success { rejected_spans: 2, error_message: "not agent spans" }
    const inner = Buffer.concat([
      Buffer.from([0x08, 0x02, 0x12, 15]),
      Buffer.from('not agent spans'),
    ]);
    expect(response).toEqual(Buffer.concat([Buffer.from([0x0a, inner.length]), inner]));
  });

  it('maps overloaded to UNAVAILABLE with retry hints in the trailers', async () => {
    behaviour = async () => {
      throw new SpyglassError('overloaded', 'ingest queue full', { retryAfter: 1 });
    };
    const { error } = await callExport(client, await makeProtobuf(1));
    expect(error?.code).toBe(status.UNAVAILABLE);
    expect(error?.details).toBe('ingest queue full');
    expect(error?.metadata.get('grpc-retry-pushback-ms')).toEqual(['1000']);
    const details = error?.metadata.get('grpc-status-details-bin')[0];
    expect(
      Buffer.isBuffer(details) && details.includes('type.googleapis.com/google.rpc.RetryInfo'),
    ).toBe(true);
  });

  it('maps auth errors, and hides unexpected errors behind INTERNAL', async () => {
    const payload = await makeProtobuf(1);
    behaviour = async () => {
      throw new SpyglassError('unauthenticated', 'missing API key');
    };
    expect((await callExport(client, payload)).error?.code).toBe(status.UNAUTHENTICATED);
    behaviour = async () => {
      throw new SpyglassError('forbidden', 'read-only key');
    };
    expect((await callExport(client, payload)).error?.code).toBe(status.PERMISSION_DENIED);
    behaviour = async () => {
      throw new SpyglassError('rate_limited', 'slow down');
    };
    expect((await callExport(client, payload)).error?.code).toBe(status.RESOURCE_EXHAUSTED);
    behaviour = async () => {
      throw new Error('connection to db at 10.0.0.5 refused');
    };
    const { error } = await callExport(client, payload);
    expect(error?.code).toBe(status.INTERNAL);
    expect(error?.details).toBe('internal error');
    expect(internalErrors).toHaveLength(1);
  });

  it('admits a call from its metadata before decoding it: a refused caller never sees decoder errors', async () => {
    const seen: string[] = [];
    admission = async (meta) => {
      seen.push(meta.metadata['x-api-key'] ?? '');
      throw new SpyglassError('unauthenticated', 'missing API key');
    };
    const { error } = await callExport(client, Buffer.from('definitely not protobuf'));
    expect(error?.code).toBe(status.UNAUTHENTICATED);
    expect(error?.details).toBe('missing API key');
    expect(seen).toEqual(['']);
    expect(received).toHaveLength(0);
  });

  it('answers INVALID_ARGUMENT to garbage and keeps serving', async () => {
    const { error } = await callExport(client, Buffer.from('definitely not protobuf'));
    expect(error?.code).toBe(status.INVALID_ARGUMENT);
    expect(error?.details).toMatch(/^invalid OTLP protobuf: /);
    expect(received).toHaveLength(0);

    const ok = await callExport(client, await makeProtobuf(2));
    expect(ok.error).toBeUndefined();
    expect(received[0]!.req.resourceSpans[0]!.spans).toHaveLength(2);
  });

  it('announces receive windows sized for exports (a stream and a connection), not 64 KB', async () => {
    const session = http2.connect(`http://127.0.0.1:${server.port}`);
    try {
      await expect.poll(() => session.remoteSettings?.initialWindowSize).toBe(STREAM_WINDOW);
      await expect.poll(() => session.state.remoteWindowSize).toBe(CONNECTION_WINDOW);
    } finally {
      session.close();
    }
  });
});

describe('OTLP/gRPC receiver limits and shutdown', () => {
  it('refuses messages above maxMessageBytes without calling onExport', async () => {
    let calls = 0;
    const server = await startOtlpGrpcServer({
      host: '127.0.0.1',
      port: 0,
      slices: new CpuSlices(),
      maxMessageBytes: 1024,
      admit: admitAll,
      onExport: async () => {
        calls++;
        return ACCEPTED;
      },
    });
    const client = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure());
    try {
      const payload = await makeProtobuf(50);
      expect(payload.length).toBeGreaterThan(1024);
      expect((await callExport(client, payload)).error?.code).toBe(status.RESOURCE_EXHAUSTED);
      expect(calls).toBe(0);
    } finally {
      client.close();
      await server.close();
    }
  });

  it('lets an in-flight export finish before close() resolves', async () => {
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const server = await startOtlpGrpcServer({
      host: '127.0.0.1',
      port: 0,
      slices: new CpuSlices(),
      maxMessageBytes: 1024 * 1024,
      admit: admitAll,
      onExport: async () => {
        arrived();
        await released;
        return ACCEPTED;
      },
    });
    const client = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure());
    try {
      const call = callExport(client, await makeProtobuf(1));
      await arrival;
      const closing = server.close();
      release();
      expect((await call).error).toBeUndefined();
      await closing;
      expect((await callExport(client, await makeProtobuf(1))).error?.code).toBe(
        status.UNAVAILABLE,
      );
    } finally {
      client.close();
      await server.close();
    }
  });
});
