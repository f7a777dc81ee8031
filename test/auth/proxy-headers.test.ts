import { Metadata } from '@grpc/grpc-js';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs, call, configFile, createKey, type CreatedKey } from '../helpers/auth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * X-User-Id / X-User-Role / X-Forwarded-For count only from SPYGLASS_TRUSTED_PROXY_CIDRS (docs/auth.md#behind-a-proxy),
 * and even then the role can only narrow what the key allows. Every test client
 * connects from 127.0.0.1, so "untrusted" means a CIDR list without loopback.
 *
 * Requests without a key are refused before the rate limiter, so the per-IP identity can only be
 * seen while no key exists (auth-disabled local mode, every request keyless). Each server therefore
 * starts with no key: the X-Forwarded-For test runs first, then the first admin key is created
 * through the API (which turns auth on) and the key tests follow. Tests run in file order.
 */

const UNTRUSTED_LOOPBACK = { SPYGLASS_TRUSTED_PROXY_CIDRS: '10.0.0.0/8' };
const EMAIL = 'jane.doe@example.com';
/** Small limit on one route for the X-Forwarded-For tests; every other route keeps 200/minute. */
const config = configFile('rate_limits:\n  accept_invite: 3\n');
afterAll(() => config.remove());

interface Keys {
  boot: string;
  admin: CreatedKey;
  viewer: CreatedKey;
}

/** Creates the first admin key with no key (auth-disabled mode), then an admin and a viewer key. */
async function firstKeys(base: string): Promise<Keys> {
  const first = await call(base, 'POST', '/api/auth/api-keys', {
    body: { name: 'first admin', role: 'admin' },
  });
  expect(first.status).toBe(201);
  // From now on auth is on: a keyless request is refused.
  expect((await call(base, 'GET', '/api/settings')).status).toBe(401);
  const boot = first.json.key as string;
  return {
    boot,
    admin: await createKey(base, boot, { role: 'admin' }),
    viewer: await createKey(base, boot, { role: 'viewer' }),
  };
}

/** accept-invite with a made-up token from each address in turn: 400 = reached the handler. */
async function acceptFrom(base: string, ips: string[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const ip of ips) {
    const r = await call(base, 'POST', '/api/users/accept-invite', {
      headers: { 'x-forwarded-for': ip },
      body: { token: 'nope', password: 'long enough password' },
    });
    statuses.push(r.status);
  }
  return statuses;
}

const FIVE_CLIENTS = [
  '198.51.100.1',
  '198.51.100.2',
  '198.51.100.3',
  '198.51.100.4',
  '198.51.100.5',
];

async function toolSpans(): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  provider
    .getTracer('proxy')
    .startSpan('tools/call x', { attributes: { 'mcp.server.name': 's', 'mcp.tool.name': 't' } })
    .end();
  await provider.forceFlush();
  return memory.getFinishedSpans();
}

describe('from an untrusted address (loopback, with SPYGLASS_TRUSTED_PROXY_CIDRS=10.0.0.0/8)', () => {
  let server: TestServer;
  let base: string;
  let keys: Keys;
  const getKeys = async () => (keys ??= await firstKeys(base));

  beforeAll(async () => {
    server = await startTestServer({ SPYGLASS_CONFIG: config.path, ...UNTRUSTED_LOOPBACK });
    base = server.httpUrl;
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it('a new X-Forwarded-For per request does not give a new rate-limit counter', async () => {
    expect(keys, 'must run before any key exists').toBeUndefined();
    expect(await acceptFrom(base, FIVE_CLIENTS)).toEqual([400, 400, 400, 429, 429]);
  });

  it('a viewer key with X-User-Role: admin still gets 403 on writes', async () => {
    const { viewer } = await getKeys();
    const headers = { 'x-user-role': 'admin', 'x-user-id': EMAIL };
    expect(
      (
        await call(base, 'POST', '/api/projects', {
          key: viewer.key,
          headers,
          body: { id: 'p-viewer', name: 'x' },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await call(base, 'PUT', '/api/settings', {
          key: viewer.key,
          headers,
          body: { redact_payloads: true },
        })
      ).status,
    ).toBe(403);
    expect((await call(base, 'GET', '/api/settings', { key: viewer.key, headers })).status).toBe(
      200,
    );
  });

  it('ignores X-User-Role and X-User-Id entirely: an admin key stays admin and is the audit actor', async () => {
    const { admin, boot } = await getKeys();
    const r = await call(base, 'POST', '/api/projects', {
      key: admin.key,
      headers: { 'x-user-role': 'viewer', 'x-user-id': EMAIL },
      body: { id: 'p-untrusted', name: 'x' },
    });
    expect(r.status).toBe(201);
    const entry = (await auditLogs(base, boot)).find((e) => e.resource === 'project:p-untrusted');
    expect(entry).toMatchObject({ action: 'project.created', actor: `key:${admin.prefix}` });
  });
});

describe('from a trusted proxy (default: loopback)', () => {
  let server: TestServer;
  let base: string;
  let keys: Keys;
  const getKeys = async () => (keys ??= await firstKeys(base));

  beforeAll(async () => {
    server = await startTestServer({ SPYGLASS_CONFIG: config.path });
    base = server.httpUrl;
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it('X-Forwarded-For is the client: one counter per forwarded address (control for the test above)', async () => {
    expect(keys, 'must run before any key exists').toBeUndefined();
    expect(await acceptFrom(base, FIVE_CLIENTS)).toEqual([400, 400, 400, 400, 400]);
    expect(
      await acceptFrom(base, ['203.0.113.9', '203.0.113.9', '203.0.113.9', '203.0.113.9']),
    ).toEqual([400, 400, 400, 429]);
  });

  it('X-User-Role: viewer narrows an admin key to viewer (403 on writes, reads still fine)', async () => {
    const { admin, viewer } = await getKeys();
    const headers = { 'x-user-role': 'viewer' };
    expect(
      (
        await call(base, 'POST', '/api/projects', {
          key: admin.key,
          headers,
          body: { id: 'p-narrowed', name: 'x' },
        })
      ).status,
    ).toBe(403);
    expect(
      (await call(base, 'DELETE', `/api/auth/api-keys/${viewer.id}`, { key: admin.key, headers }))
        .status,
    ).toBe(403);
    expect((await call(base, 'GET', '/api/projects', { key: admin.key, headers })).status).toBe(
      200,
    );
    // The same key without the header is admin.
    expect(
      (
        await call(base, 'POST', '/api/projects', {
          key: admin.key,
          body: { id: 'p-not-narrowed', name: 'x' },
        })
      ).status,
    ).toBe(201);
  });

  it('X-User-Role: admin cannot widen a viewer key', async () => {
    const { viewer } = await getKeys();
    const r = await call(base, 'POST', '/api/projects', {
      key: viewer.key,
      headers: { 'x-user-role': 'admin' },
      body: { id: 'p-widened', name: 'x' },
    });
    expect(r.status).toBe(403);
  });

  it('narrows on OTLP/gRPC too (x-user-role metadata → PERMISSION_DENIED)', async () => {
    const { admin } = await getKeys();
    const metadata = new Metadata();
    metadata.set('x-api-key', admin.key);
    metadata.set('x-user-role', 'viewer');
    const exporter = new GrpcExporter({ url: `http://127.0.0.1:${server.grpcPort}`, metadata });
    const spans = await toolSpans();
    const result = await new Promise<{ code: number; error?: Error }>((resolve) =>
      exporter.export(spans, resolve),
    ).finally(() => exporter.shutdown());
    expect(result.code).not.toBe(0);
    expect(String(result.error?.message)).toMatch(/PERMISSION_DENIED|read-only/);
  });

  it('X-User-Id becomes the audit actor, with the e-mail masked', async () => {
    const { admin, boot } = await getKeys();
    const r = await call(base, 'POST', '/api/projects', {
      key: admin.key,
      headers: { 'x-user-id': EMAIL },
      body: { id: 'p-by-jane', name: 'x' },
    });
    expect(r.status).toBe(201);
    const res = await call(base, 'GET', '/api/audit/logs', { key: boot });
    const entry = (res.json as any[]).find((e) => e.resource === 'project:p-by-jane');
    expect(entry).toMatchObject({ action: 'project.created', actor: 'user:j***@example.com' });
    expect(res.text).not.toContain(EMAIL);
  });
});
