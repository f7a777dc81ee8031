import { Client, Metadata, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  BasicTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRACE_EXPORT_PATH } from '../../src/receivers/otlp-grpc.ts';
import { bootstrapKey, configFile, createKey } from '../helpers/auth.ts';
import { captureLog } from '../helpers/log-capture.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * OTLP/gRPC against the real server: the caller is authenticated from metadata before its message
 * is decoded, and the `otlp` rate limit applies as on OTLP/HTTP (RESOURCE_EXHAUSTED + RetryInfo).
 * Rate-limited ingest is logged once per caller per minute on both transports.
 */

async function oneToolSpan(): Promise<Buffer> {
  const kept: ReadableSpan[] = [];
  const keeper: SpanExporter = {
    export: (spans, done) => (kept.push(...spans), done({ code: 0 })),
    shutdown: async () => undefined,
  };
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(keeper)] });
  provider
    .getTracer('admit')
    .startSpan('mcp.fs.read_file', { attributes: { 'gen_ai.conversation.id': 'admit' } })
    .end();
  await provider.shutdown();
  return Buffer.from(ProtobufTraceSerializer.serializeRequest(kept)!);
}

describe('OTLP/gRPC admission on the real server', () => {
  const config = configFile('rate_limits:\n  otlp: 2\n');
  const log = captureLog();
  const boot = bootstrapKey();
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await startTestServer(
      { SPYGLASS_API_KEYS: boot, SPYGLASS_CONFIG: config.path },
      log.logger,
    );
    client = new Client(`127.0.0.1:${server.grpcPort}`, credentials.createInsecure());
  });
  afterAll(async () => {
    client?.close();
    await server?.dispose();
    config.remove();
  });

  const exportCall = (payload: Buffer, key?: string) => {
    const md = new Metadata();
    if (key) md.set('x-api-key', key);
    const pass = (b: Buffer) => b;
    return new Promise<ServiceError | null>((resolve) =>
      client.makeUnaryRequest(TRACE_EXPORT_PATH, pass, pass, payload, md, (err) => resolve(err)),
    );
  };
  const rateWarnings = () =>
    log.lines.filter(
      (l) => l.level === 40 && String(l.msg).startsWith('ingest rate limit exceeded'),
    );

  it('refuses an unauthenticated caller before decoding: UNAUTHENTICATED, no decoder message', async () => {
    const err = await exportCall(Buffer.from('definitely not protobuf'));
    expect(err?.code).toBe(status.UNAUTHENTICATED);
    expect(err?.details).not.toMatch(/protobuf|offset|wire type/);
  });

  it('applies the otlp limit: RESOURCE_EXHAUSTED with RetryInfo, and one warning per key per minute', async () => {
    const payload = await oneToolSpan();
    expect(await exportCall(payload, boot)).toBeNull();
    expect(await exportCall(payload, boot)).toBeNull();
    const limited = await exportCall(payload, boot);
    expect(limited?.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(limited?.details).toBe('Rate limit exceeded: 2 per 1 minute');
    const pushback = Number(limited?.metadata.get('grpc-retry-pushback-ms')[0]);
    expect(pushback).toBeGreaterThan(0);
    expect(pushback).toBeLessThanOrEqual(60_000);
    const details = limited?.metadata.get('grpc-status-details-bin')[0];
    expect(
      Buffer.isBuffer(details) && details.includes('type.googleapis.com/google.rpc.RetryInfo'),
    ).toBe(true);
    expect((await exportCall(payload, boot))?.code).toBe(status.RESOURCE_EXHAUSTED);

    expect(rateWarnings()).toEqual([
      expect.objectContaining({
        transport: 'grpc',
        who: expect.stringMatching(/^key:[0-9a-f]{24}$/),
      }),
    ]);
    expect(log.text()).not.toContain(boot);
  });

  it('OTLP/HTTP: a 429 is logged the same way, once per key per minute', async () => {
    const key = (await createKey(server.httpUrl, boot, { role: 'admin' })).key;
    const payload = await oneToolSpan();
    const post = () =>
      fetch(`${server.httpUrl}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf', 'x-api-key': key },
        body: new Uint8Array(payload),
      });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await post()).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
    expect(rateWarnings().filter((w) => w.transport === 'http')).toEqual([
      expect.objectContaining({ route: '/v1/traces' }),
    ]);
  });
});
