import { randomUUID } from 'node:crypto';
import { Client, Metadata, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load-config.ts';
import { TRACE_EXPORT_PATH } from '../../src/receivers/otlp-grpc.ts';
import { call, configFile } from '../helpers/auth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { nativeSpan, postJson } from '../helpers/spans.ts';

/**
 * The span-weighted limit (rate_limits.spans_per_minute, issue 25 item 2): the request limits
 * allowed 2,000 batches of 10,000 spans a minute. It counts spans per project, over every
 * receiver, and with Redis over every instance.
 */
const LIMITS = 'rate_limits:\n  spans_per_minute: 100\ningest:\n  max_batch_spans: 100\n';
const redisUrl = inject('redisUrl');

const spans = (project: string, n: number) =>
  Array.from({ length: n }, () => nativeSpan({ project_id: project, span_id: randomUUID() }));

async function projects(base: string, ids: string[]): Promise<void> {
  for (const id of ids)
    expect((await call(base, 'POST', '/api/projects', { body: { id, name: id } })).status).toBe(
      201,
    );
}

function expectSpansLimited(r: Awaited<ReturnType<typeof postJson>>, project: string): void {
  expect(r.status).toBe(429);
  expect(r.json).toEqual({
    detail: `Rate limit exceeded: 100 spans per 1 minute for project "${project}"`,
  });
  const retryAfter = Number(r.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

describe('spans per minute, in process', () => {
  const config = configFile(LIMITS);
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ SPYGLASS_CONFIG: config.path });
    await projects(server.httpUrl, ['busy', 'quiet', 'grpc']);
  });
  afterAll(async () => {
    await server?.dispose();
    config.remove();
  });

  it("refuses a project's batch that would pass its spans per minute with 429 + Retry-After, and stores none of it", async () => {
    const ingest = `${server.httpUrl}/api/traces/spans`;
    // Two requests: the request limit (rate_limits.spans, 2,000 a minute) is far away.
    expect((await postJson(ingest, spans('busy', 60))).status).toBe(202);
    const over = spans('busy', 60);
    expectSpansLimited(await postJson(ingest, over), 'busy');
    const stored = await call(
      server.httpUrl,
      'GET',
      `/api/traces/spans?project_id=busy&limit=1000`,
    );
    expect(stored.json).toHaveLength(60);
    // Another project has its own count.
    expect((await postJson(ingest, spans('quiet', 100))).status).toBe(202);
  });

  it('counts OTLP/gRPC spans too: RESOURCE_EXHAUSTED with a retry delay', async () => {
    const client = new Client(`127.0.0.1:${server.grpcPort}`, credentials.createInsecure());
    try {
      const call = (payload: Buffer) =>
        new Promise<ServiceError | null>((resolve) => {
          client.makeUnaryRequest(
            TRACE_EXPORT_PATH,
            (b: Buffer) => b,
            (b: Buffer) => b,
            payload,
            new Metadata(),
            (error) => resolve(error),
          );
        });
      expect(await call(await otlpToolSpans('grpc', 60))).toBeNull();
      const refused = await call(await otlpToolSpans('grpc', 60));
      expect(refused?.code).toBe(status.RESOURCE_EXHAUSTED);
      expect(refused?.details).toBe(
        'Rate limit exceeded: 100 spans per 1 minute for project "grpc"',
      );
      expect(Number(refused?.metadata.get('grpc-retry-pushback-ms')[0])).toBeGreaterThanOrEqual(
        1000,
      );
    } finally {
      client.close();
    }
  });
});

/** An OTLP/protobuf export of `n` MCP tool-call spans of `project` (resource spyglass.project_id). */
async function otlpToolSpans(project: string, n: number): Promise<Buffer> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'spyglass.project_id': project }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('spans-per-minute');
  for (let i = 0; i < n; i++)
    tracer
      .startSpan('mcp.fs.read_file', {
        attributes: {
          'mcp.method.name': 'tools/call',
          'mcp.server.name': 'fs',
          'mcp.tool.name': 'read_file',
        },
      })
      .end();
  await provider.forceFlush();
  return Buffer.from(ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!);
}

describe.runIf(redisUrl !== null)(
  redisUrl !== null
    ? 'spans per minute shared through Redis'
    : 'spans per minute shared through Redis (SKIPPED: no redis-server)',
  () => {
    const config = configFile(LIMITS);
    const cluster = `t-${randomUUID()}`;
    let a: TestServer;
    let b: TestServer;
    let redis: Redis;
    beforeAll(async () => {
      redis = new Redis(redisUrl!, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      const env = {
        SPYGLASS_CONFIG: config.path,
        SPYGLASS_REDIS_URL: redisUrl!,
        SPYGLASS_CLUSTER_NAME: cluster,
      };
      [a, b] = await Promise.all([startTestServer(env), startTestServer(env)]);
      for (const s of [a, b]) await projects(s.httpUrl, ['shared', 'warm-a', 'warm-b']);
      // The limiter counts in process until its Redis connection is up: wait (bounded) until each
      // instance's count reaches Redis.
      for (const [s, warm] of [
        [a, 'warm-a'],
        [b, 'warm-b'],
      ] as const) {
        // vi.waitFor, not expect.poll: this runs in a hook.
        await vi.waitFor(
          async () => {
            expect((await postJson(`${s.httpUrl}/api/traces/spans`, spans(warm, 1))).status).toBe(
              202,
            );
            expect(
              await redis.exists(`${cluster}:rl:spans-per-minute:project:${warm}`),
              'the instance never started counting in Redis',
            ).toBe(1);
          },
          { interval: 50, timeout: 2500 },
        );
      }
    });
    afterAll(async () => {
      await Promise.all([a?.dispose(), b?.dispose()]);
      redis?.disconnect();
      config.remove();
    });

    it("two instances share one project's count", async () => {
      expect((await postJson(`${a.httpUrl}/api/traces/spans`, spans('shared', 60))).status).toBe(
        202,
      );
      expectSpansLimited(
        await postJson(`${b.httpUrl}/api/traces/spans`, spans('shared', 60)),
        'shared',
      );
      expect(
        Number(await redis.get(`${cluster}:rl:spans-per-minute:project:shared`)),
      ).toBeGreaterThanOrEqual(60);
    });
  },
);

describe('configuration of the fair-ingest limits', () => {
  const load = (yaml: string) => {
    const c = configFile(yaml);
    try {
      return loadConfig({ SPYGLASS_CONFIG: c.path }, '/');
    } finally {
      c.remove();
    }
  };

  it('documents its defaults: 600,000 spans a minute per project, 20,000 queued spans per project', () => {
    const c = load('{}');
    expect(c.rateLimits.spansPerMinute).toBe(600_000);
    expect(c.ingest.maxQueuedSpansPerProject).toBe(20_000);
  });

  it('refuses a spans-per-minute limit below the largest batch (a full batch could never pass) and a zero queue share', () => {
    expect(() =>
      load('rate_limits: { spans_per_minute: 5000 }\ningest: { max_queued_spans_per_project: 0 }'),
    ).toThrow(ConfigError);
    try {
      load('rate_limits: { spans_per_minute: 5000 }\ningest: { max_queued_spans_per_project: 0 }');
    } catch (err) {
      expect((err as ConfigError).problems).toEqual([
        'ingest.max_queued_spans_per_project must be an integer from 1 to 10000000 (got 0)',
        'rate_limits.spans_per_minute (5000) must be at least ingest.max_batch_spans (10000), or a full batch could never be accepted',
      ]);
    }
    expect(
      load('rate_limits: { spans_per_minute: 5000 }\ningest: { max_batch_spans: 5000 }').rateLimits
        .spansPerMinute,
    ).toBe(5000);
  });
});
