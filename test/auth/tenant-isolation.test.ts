import { randomUUID } from 'node:crypto';
import { Metadata } from '@grpc/grpc-js';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as HttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as HttpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditLogs,
  bootstrapKey,
  call,
  createKey,
  createProject,
  expectStatus,
  type CreatedKey,
} from '../helpers/auth.ts';
import { serverBackends } from '../helpers/backends.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { nativeSpan } from '../helpers/spans.ts';

/**
 * Two tenants on one server: everything key A writes lands in project A whatever the transport,
 * and key B can neither see it nor write into A, over REST, OTLP/HTTP, OTLP/gRPC and GraphQL.
 */

const A = 'tenant-a';
const B = 'tenant-b';
const SUCCESS = 0; // ExportResultCode.SUCCESS

/** Agent/tool spans (selected by docs/ingest.md's attributes), recorded in memory, all in `session`. */
async function otelSpans(
  session: string,
  resource: Record<string, string> = {},
): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'tenant-test', ...resource }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('tenant-test');
  tracer
    .startSpan('tools/call read_file', {
      attributes: {
        'mcp.server.name': 'filesystem',
        'mcp.tool.name': 'read_file',
        'gen_ai.agent.name': 'planner',
        'gen_ai.conversation.id': session,
      },
    })
    .end();
  tracer
    .startSpan('invoke_agent planner', {
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'planner',
        'gen_ai.conversation.id': session,
      },
    })
    .end();
  await provider.forceFlush();
  const spans = memory.getFinishedSpans();
  await provider.shutdown();
  return spans;
}

/** Sends spans through a real exporter and returns its result (code 0 = success). */
async function exportWith(
  exporter: SpanExporter,
  spans: ReadableSpan[],
): Promise<{ code: number; error?: Error }> {
  try {
    return await new Promise((resolve) => exporter.export(spans, resolve));
  } finally {
    await exporter.shutdown();
  }
}

function grpcMetadata(key?: string): Metadata {
  const md = new Metadata();
  if (key) md.set('x-api-key', key);
  return md;
}

describe.each(serverBackends)('$name', ({ name, available, env }) => {
  describe.runIf(available)(
    available ? 'tenant isolation' : `tenant isolation (skipped: no ${name} in this run)`,
    () => {
      let server: TestServer;
      let base: string;
      const boot = bootstrapKey();
      let keyA: CreatedKey;
      let keyB: CreatedKey;
      let viewerA: CreatedKey;
      const sessionsA: string[] = [];

      /** Spans of a session as the global admin sees them. */
      const spansOf = async (session: string) =>
        expectStatus(
          await call(base, 'GET', `/api/traces/spans?session_id=${session}`, { key: boot }),
          200,
          'read spans',
        ).json as any[];

      beforeAll(async () => {
        server = await startTestServer({
          ...(await env()),
          SPYGLASS_API_KEYS: boot,
          SPYGLASS_RATE_LIMITS: 'off',
        });
        base = server.httpUrl;
        await createProject(base, boot, A);
        await createProject(base, boot, B);
        keyA = await createKey(base, boot, {
          name: 'tenant A writer',
          role: 'admin',
          project_id: A,
        });
        keyB = await createKey(base, boot, {
          name: 'tenant B writer',
          role: 'admin',
          project_id: B,
        });
        viewerA = await createKey(base, boot, {
          name: 'tenant A viewer',
          role: 'viewer',
          project_id: A,
        });
        // An instance-wide audit entry (no project): a bound key must not see it either.
        expectStatus(
          await call(base, 'PUT', '/api/settings', { key: boot, body: { redact_payloads: false } }),
          200,
          'settings',
        );
        // B has data of its own, so "B sees nothing of A" is not just "B sees nothing".
        const r = await call(base, 'POST', '/api/traces/spans', {
          key: keyB.key,
          body: [nativeSpan({ session_id: 'sess-b-own' })],
        });
        expectStatus(r, 202, 'B writes its own span');
      });

      afterAll(async () => {
        await server?.dispose();
      });

      describe('key A writes land in project A without naming it', () => {
        it('native JSON spans', async () => {
          const session = `sess-a-native-${randomUUID()}`;
          const r = await call(base, 'POST', '/api/traces/spans', {
            key: keyA.key,
            body: [nativeSpan({ session_id: session }), nativeSpan({ session_id: session })],
          });
          expect(r.status).toBe(202);
          const stored = await spansOf(session);
          expect(stored.map((s) => s.project_id)).toEqual([A, A]);
          sessionsA.push(session);
        });

        it('native spans naming project A explicitly', async () => {
          const session = `sess-a-named-${randomUUID()}`;
          const r = await call(base, 'POST', '/api/traces/spans', {
            key: keyA.key,
            body: [nativeSpan({ session_id: session, project_id: A })],
          });
          expect(r.status).toBe(202);
          expect((await spansOf(session)).map((s) => s.project_id)).toEqual([A]);
          sessionsA.push(session);
        });

        it('OTLP/HTTP JSON through the real exporter, key in headers (the key wins over a resource naming B)', async () => {
          const session = `sess-a-otlp-json-${randomUUID()}`;
          const exporter = new HttpJsonExporter({
            url: `${base}/v1/traces`,
            headers: { 'x-api-key': keyA.key },
          });
          const result = await exportWith(
            exporter,
            await otelSpans(session, { 'spyglass.project_id': B }),
          );
          expect(result.error?.message).toBeUndefined();
          expect(result.code).toBe(SUCCESS);
          const stored = await spansOf(session);
          expect(stored).toHaveLength(2);
          expect(stored.map((s) => s.project_id)).toEqual([A, A]);
          expect(stored.map((s) => s.agent_name)).toEqual(['planner', 'planner']);
          sessionsA.push(session);
        });

        it('OTLP/HTTP protobuf through the real exporter at /api/traces/otlp, key as Bearer', async () => {
          const session = `sess-a-otlp-proto-${randomUUID()}`;
          const exporter = new HttpProtoExporter({
            url: `${base}/api/traces/otlp`,
            headers: { authorization: `Bearer ${keyA.key}` },
          });
          const result = await exportWith(exporter, await otelSpans(session));
          expect(result.code).toBe(SUCCESS);
          expect((await spansOf(session)).map((s) => s.project_id)).toEqual([A, A]);
          sessionsA.push(session);
        });

        it('OTLP/gRPC through the real exporter, key in metadata', async () => {
          expect(server.grpcPort).toBeTypeOf('number');
          const session = `sess-a-grpc-${randomUUID()}`;
          const exporter = new GrpcExporter({
            url: `http://127.0.0.1:${server.grpcPort}`,
            metadata: grpcMetadata(keyA.key),
          });
          const result = await exportWith(
            exporter,
            await otelSpans(session, { 'spyglass.project_id': B }),
          );
          expect(result.error?.message).toBeUndefined();
          expect(result.code).toBe(SUCCESS);
          expect((await spansOf(session)).map((s) => s.project_id)).toEqual([A, A]);
          sessionsA.push(session);
        });
      });

      describe('key B sees nothing of project A', () => {
        it('GET /api/traces/spans lists only B, and naming A is 403', async () => {
          expect(sessionsA.length).toBe(5);
          const all = expectStatus(
            await call(base, 'GET', '/api/traces/spans?limit=1000', { key: keyB.key }),
            200,
            'B spans',
          ).json as any[];
          expect(all.length).toBeGreaterThan(0);
          expect(new Set(all.map((s) => s.project_id))).toEqual(new Set([B]));
          for (const session of sessionsA) {
            const r = await call(base, 'GET', `/api/traces/spans?session_id=${session}`, {
              key: keyB.key,
            });
            expect(r.status).toBe(200);
            expect(r.json).toEqual([]);
          }
          const named = await call(base, 'GET', `/api/traces/spans?project_id=${A}`, {
            key: keyB.key,
          });
          expect(named.status).toBe(403);
          expect(named.json).toEqual({ detail: expect.any(String) });
          // Naming its own project is fine.
          expect(
            (await call(base, 'GET', `/api/traces/spans?project_id=${B}`, { key: keyB.key }))
              .status,
          ).toBe(200);
        });

        it('GET /api/projects lists only B; A is 403 by id, for reads and writes', async () => {
          const list = expectStatus(
            await call(base, 'GET', '/api/projects', { key: keyB.key }),
            200,
            'B projects',
          ).json as any[];
          expect(list.map((p) => p.id)).toEqual([B]);
          expect((await call(base, 'GET', `/api/projects/${A}`, { key: keyB.key })).status).toBe(
            403,
          );
          expect(
            (
              await call(base, 'PATCH', `/api/projects/${A}`, {
                key: keyB.key,
                body: { name: 'taken over' },
              })
            ).status,
          ).toBe(403);
          expect((await call(base, 'DELETE', `/api/projects/${A}`, { key: keyB.key })).status).toBe(
            403,
          );
          expect((await call(base, 'GET', `/api/projects/${A}`, { key: boot })).json.name).toBe(
            `Project ${A}`,
          );
        });

        it('GET /api/audit/logs shows only B entries', async () => {
          const asB = await auditLogs(base, keyB.key, '?limit=200');
          const asGlobal = await auditLogs(base, boot, '?limit=200');
          // The global view has A's, B's and instance-wide entries; B's view only B's.
          expect(asGlobal.map((e) => e.resource)).toEqual(
            expect.arrayContaining([
              `project:${A}`,
              `project:${B}`,
              `api_key:${keyA.prefix}`,
              `api_key:${keyB.prefix}`,
            ]),
          );
          expect(asGlobal.some((e) => e.action === 'settings.updated')).toBe(true);
          const resources = asB.map((e) => e.resource);
          expect(resources).toEqual(
            expect.arrayContaining([`project:${B}`, `api_key:${keyB.prefix}`]),
          );
          for (const leaked of [
            `project:${A}`,
            `api_key:${keyA.prefix}`,
            `api_key:${viewerA.prefix}`,
          ])
            expect(resources).not.toContain(leaked);
          expect(asB.some((e) => e.action === 'settings.updated')).toBe(false);
        });

        it('API keys: B lists only its own and cannot revoke A’s', async () => {
          const list = expectStatus(
            await call(base, 'GET', '/api/auth/api-keys', { key: keyB.key }),
            200,
            'B keys',
          ).json as any[];
          expect(list.map((k) => k.project_id)).toEqual([B]);
          expect(
            (await call(base, 'GET', `/api/auth/api-keys?project_id=${A}`, { key: keyB.key }))
              .status,
          ).toBe(403);
          expect(
            (await call(base, 'DELETE', `/api/auth/api-keys/${keyA.id}`, { key: keyB.key })).status,
          ).toBe(404);
          expect((await call(base, 'GET', '/api/projects', { key: keyA.key })).status).toBe(200);
          // A key B creates is bound to B whatever it asks for.
          const made = await call(base, 'POST', '/api/auth/api-keys', {
            key: keyB.key,
            body: { name: 'b-made', role: 'viewer' },
          });
          expect(made.status).toBe(201);
          expect(made.json.project_id).toBe(B);
          expect(
            (
              await call(base, 'POST', '/api/auth/api-keys', {
                key: keyB.key,
                body: { name: 'b-into-a', role: 'admin', project_id: A },
              })
            ).status,
          ).toBe(403);
        });
      });

      describe('writes into the wrong project are refused and store nothing', () => {
        it('key B posting a span that names project A → 403', async () => {
          const session = `sess-b-into-a-${randomUUID()}`;
          const r = await call(base, 'POST', '/api/traces/spans', {
            key: keyB.key,
            body: [nativeSpan({ session_id: session, project_id: A })],
          });
          expect(r.status).toBe(403);
          expect(r.json.detail).toMatch(/bound to project/);
          expect(await spansOf(session)).toEqual([]);
        });

        it('a mixed batch (one span B, one span A) is refused whole', async () => {
          const session = `sess-b-mixed-${randomUUID()}`;
          const body = [
            nativeSpan({ session_id: session, project_id: B }),
            nativeSpan({ session_id: session, project_id: A }),
          ];
          expect(
            (await call(base, 'POST', '/api/traces/spans', { key: keyB.key, body })).status,
          ).toBe(403);
          expect(await spansOf(session)).toEqual([]);
        });

        it('a viewer key cannot write spans on any transport (403 / PERMISSION_DENIED)', async () => {
          const session = `sess-viewer-${randomUUID()}`;
          const native = await call(base, 'POST', '/api/traces/spans', {
            key: viewerA.key,
            body: [nativeSpan({ session_id: session })],
          });
          expect(native.status).toBe(403);
          const http = await exportWith(
            new HttpJsonExporter({
              url: `${base}/v1/traces`,
              headers: { 'x-api-key': viewerA.key },
            }),
            await otelSpans(session),
          );
          expect(http.code).not.toBe(SUCCESS);
          expect(String(http.error?.message)).toMatch(/403|Forbidden|read-only/i);
          const grpc = await exportWith(
            new GrpcExporter({
              url: `http://127.0.0.1:${server.grpcPort}`,
              metadata: grpcMetadata(viewerA.key),
            }),
            await otelSpans(session),
          );
          expect(grpc.code).not.toBe(SUCCESS);
          expect(String(grpc.error?.message)).toMatch(/PERMISSION_DENIED|read-only/);
          expect(await spansOf(session)).toEqual([]);
        });

        it('OTLP/gRPC without a key or with an unknown key is UNAUTHENTICATED', async () => {
          const session = `sess-grpc-nokey-${randomUUID()}`;
          for (const key of [undefined, `sg_${'f'.repeat(64)}`]) {
            const r = await exportWith(
              new GrpcExporter({
                url: `http://127.0.0.1:${server.grpcPort}`,
                metadata: grpcMetadata(key),
              }),
              await otelSpans(session),
            );
            expect(r.code).not.toBe(SUCCESS);
            expect(String(r.error?.message)).toMatch(/UNAUTHENTICATED|API key/);
          }
          expect(await spansOf(session)).toEqual([]);
        });
      });

      describe('GraphQL', () => {
        const gql = async (key: string, query: string) => {
          const r = await call(base, 'POST', '/graphql', { key, body: { query } });
          return r;
        };

        it('GraphQL isolation: key B sees only B through /graphql too', async (ctx) => {
          const probe = await gql(keyB.key, '{ __typename }');
          if (probe.status === 404)
            ctx.skip('POST /graphql answered 404: no GraphQL endpoint in this build');
          const spans = await gql(
            keyB.key,
            '{ spans(first: 50) { edges { node { projectId sessionId } } } }',
          );
          expect(spans.json.errors).toBeUndefined();
          const nodes = spans.json.data.spans.edges.map((e: any) => e.node);
          expect(nodes.length).toBeGreaterThan(0);
          expect(new Set(nodes.map((n: any) => n.projectId))).toEqual(new Set([B]));

          const named = await gql(
            keyB.key,
            `{ spans(filter: { projectId: "${A}" }) { edges { node { spanId } } } }`,
          );
          expect(named.json.data ?? null).toBeNull();
          expect(named.json.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', status: 403 });

          const projects = await gql(keyB.key, '{ projects { id } }');
          expect(projects.json.data.projects).toEqual([{ id: B }]);

          const project = await gql(keyB.key, `{ project(id: "${A}") { id name } }`);
          expect(project.json.data ?? null).toBeNull();
          expect(project.json.errors[0].extensions.status).toBe(403);

          const del = await gql(keyB.key, `mutation { deleteProject(id: "${A}") }`);
          expect(del.json.errors[0].extensions.status).toBe(403);
          expect((await call(base, 'GET', `/api/projects/${A}`, { key: boot })).status).toBe(200);

          // And key A sees its own spans through GraphQL.
          const own = await gql(
            keyA.key,
            `{ spans(filter: { sessionId: "${sessionsA[0]}" }) { edges { node { projectId } } } }`,
          );
          expect(own.json.data.spans.edges.map((e: any) => e.node.projectId)).toEqual([A, A]);
        });
      });

      describe('deleting a project', () => {
        // The keys are revoked in SQL; the 10 s verification cache must not keep one alive.
        it('revokes the keys bound to it at once, even one the server has just cached', async () => {
          const C = `tenant-c-${randomUUID().slice(0, 8)}`;
          await createProject(base, boot, C);
          const keyC = await createKey(base, boot, { role: 'admin', project_id: C });
          expect((await call(base, 'GET', '/api/projects', { key: keyC.key })).status).toBe(200); // now cached as valid
          expect((await call(base, 'DELETE', `/api/projects/${C}`, { key: boot })).status).toBe(
            204,
          );
          const session = `sess-orphan-${C}`;
          const write = await call(base, 'POST', '/api/traces/spans', {
            key: keyC.key,
            body: [nativeSpan({ session_id: session })],
          });
          const read = await call(base, 'GET', '/api/projects', { key: keyC.key });
          const orphans = await spansOf(session);
          expect({
            write: write.status,
            read: read.status,
            orphans: orphans.map((s) => s.project_id),
          }).toEqual({ write: 401, read: 401, orphans: [] });
        });

        it('deletes the keys bound to it (a key never used before the delete is refused)', async () => {
          const C = `tenant-c-${randomUUID().slice(0, 8)}`;
          await createProject(base, boot, C);
          const keyC = await createKey(base, boot, { role: 'admin', project_id: C });
          expect((await call(base, 'DELETE', `/api/projects/${C}`, { key: boot })).status).toBe(
            204,
          );
          expect((await call(base, 'GET', '/api/projects', { key: keyC.key })).status).toBe(401);
          const listed = (await call(base, 'GET', '/api/auth/api-keys', { key: boot }))
            .json as any[];
          expect(listed.find((k) => k.id === keyC.id)).toBeUndefined();
        });
      });
    },
  );
});
