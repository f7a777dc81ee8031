import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { getJson, nativeSpan, postJson } from '../helpers/spans.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { serverBackends } from '../helpers/backends.ts';
import { fetchUrl } from '../helpers/inject-fetch.ts';

// The HTTP ingest and read API on a PGlite server; what it stores is read back per driver in
// test/store/repos/spans-sessions.test.ts.
describe.each(serverBackends)('$name', ({ name, available, env }) => {
  describe.runIf(available)(
    available ? 'native spans' : `native spans (skipped: no ${name} in this run)`,
    () => {
      let server: InProcessApp;
      let base: string;

      beforeAll(async () => {
        server = await startInProcessApp(await env());
        base = server.httpUrl;
      });
      afterAll(async () => {
        await server?.close();
      });

      const spansOf = async (query: string) =>
        (await getJson(`${base}/api/traces/spans?${query}`)).json as any[];

      describe('native span ingest', () => {
        it('stores a batch and reads every field back', async () => {
          const agent = nativeSpan({
            span_id: 'agent-span-1',
            trace_id: 'trace-native',
            session_id: 'sess-native',
            span_type: 'agent',
            server_name: 'planner',
            tool_name: 'plan the trip',
            agent_name: 'planner',
            input_args: null,
            output_result: null,
            llm_input: 'plan a trip',
            llm_output: 'ok',
            input_tokens: 120,
            output_tokens: 30,
            model_id: 'gpt-4o',
          });
          const tool = nativeSpan({
            span_id: 'tool-span-1',
            trace_id: 'trace-native',
            session_id: 'sess-native',
            parent_span_id: 'agent-span-1',
            status: 'error',
            error: 'ENOENT',
            output_result: null,
            health_tag: 'tool_failure',
          });
          const res = await postJson(`${base}/api/traces/spans`, [agent, tool]);
          expect(res.status).toBe(202);
          expect(res.json).toEqual({ accepted: 2, duplicates: 0 });

          const got = await spansOf('session_id=sess-native');
          expect(got.map((s) => s.span_id).sort()).toEqual(['agent-span-1', 'tool-span-1']);
          const a = got.find((s) => s.span_id === 'agent-span-1');
          expect(a).toMatchObject({
            trace_id: 'trace-native',
            session_id: 'sess-native',
            span_type: 'agent',
            server_name: 'planner',
            tool_name: 'plan the trip',
            agent_name: 'planner',
            status: 'success',
            llm_input: 'plan a trip',
            llm_output: 'ok',
            input_tokens: 120,
            output_tokens: 30,
            model_id: 'gpt-4o',
            project_id: 'default',
            started_at: agent.started_at,
            ended_at: agent.ended_at,
            latency_ms: 42.5,
            parent_span_id: null,
          });
          const t = got.find((s) => s.span_id === 'tool-span-1');
          expect(t).toMatchObject({
            parent_span_id: 'agent-span-1',
            status: 'error',
            error: 'ENOENT',
            input_args: { path: '/tmp/a.txt' },
            output_result: null,
            server_name: 'filesystem',
            tool_name: 'read_file',
            health_tag: 'tool_failure',
          });
        });

        it('generates span ids, computes latency from timestamps and reads naive timestamps as UTC', async () => {
          const res = await postJson(`${base}/api/traces/spans`, [
            {
              server_name: 'github',
              tool_name: 'search',
              started_at: '2026-01-02T03:04:05',
              ended_at: '2026-01-02T03:04:05.250',
              status: 'timeout',
              session_id: 'sess-minimal',
            },
          ]);
          expect(res.status).toBe(202);
          const [s] = await spansOf('session_id=sess-minimal');
          expect(s.span_id).toMatch(/^[0-9a-f-]{36}$/);
          expect(s).toMatchObject({
            latency_ms: 250,
            status: 'timeout',
            span_type: 'tool_call',
            started_at: '2026-01-02T03:04:05.000Z',
          });
        });

        it('filters and pages newest first with a cursor', async () => {
          const t0 = Date.parse('2026-03-01T00:00:00Z');
          const batch = Array.from({ length: 25 }, (_, i) =>
            nativeSpan({
              session_id: 'sess-paging',
              server_name: i % 2 ? 'odd' : 'even',
              started_at: new Date(t0 + i * 1000).toISOString(),
              ended_at: new Date(t0 + i * 1000 + 5).toISOString(),
            }),
          );
          expect((await postJson(`${base}/api/traces/spans`, batch)).status).toBe(202);
          const seen: string[] = [];
          let cursor: string | null = '';
          let pages = 0;
          while (cursor !== null) {
            const res = await getJson(
              `${base}/api/traces/spans?session_id=sess-paging&limit=10${cursor ? `&cursor=${cursor}` : ''}`,
            );
            seen.push(...res.json.map((s: any) => s.started_at));
            cursor = res.headers.get('x-next-cursor');
            pages++;
          }
          expect(pages).toBe(3);
          expect(seen).toHaveLength(25);
          expect([...seen].sort().reverse()).toEqual(seen);
          expect(await spansOf('session_id=sess-paging&server_name=odd')).toHaveLength(12);
          expect(
            await spansOf(`session_id=sess-paging&since=${new Date(t0 + 20_000).toISOString()}`),
          ).toHaveLength(5);
        });

        it('stores a retried batch once', async () => {
          const span = nativeSpan({ span_id: 'retry-1', session_id: 'sess-retry' });
          await postJson(`${base}/api/traces/spans`, [span]);
          await postJson(`${base}/api/traces/spans`, [span]);
          expect(await spansOf('session_id=sess-retry')).toHaveLength(1);
        });

        it('accepts gzip bodies', async () => {
          const body = gzipSync(JSON.stringify([nativeSpan({ session_id: 'sess-gzip' })]));
          const res = await fetchUrl(`${base}/api/traces/spans`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
            body,
          });
          expect(res.status).toBe(202);
          expect(await spansOf('session_id=sess-gzip')).toHaveLength(1);
        });
      });

      describe('bad native input', () => {
        const cases: [string, unknown, number, unknown][] = [
          ['malformed JSON', '[{"server_name": ', 400, expect.stringContaining('malformed JSON')],
          ['not a list', { server_name: 'x' }, 422, [expect.objectContaining({ loc: ['body'] })]],
          [
            'wrong type',
            [nativeSpan(), nativeSpan({ latency_ms: 'fast' })],
            422,
            [expect.objectContaining({ loc: ['body', 1, 'latency_ms'] })],
          ],
          [
            'unknown status',
            [nativeSpan({ status: 'meh' })],
            422,
            [expect.objectContaining({ loc: ['body', 0, 'status'], type: 'enum' })],
          ],
          [
            'unknown span type',
            [nativeSpan({ span_type: 'llm' })],
            422,
            [expect.objectContaining({ loc: ['body', 0, 'span_type'] })],
          ],
          [
            'missing field',
            [nativeSpan({ tool_name: undefined })],
            422,
            [expect.objectContaining({ loc: ['body', 0, 'tool_name'], type: 'missing' })],
          ],
          [
            'bad timestamp',
            [nativeSpan({ started_at: 'yesterday' })],
            422,
            [expect.objectContaining({ loc: ['body', 0, 'started_at'] })],
          ],
          [
            'end before start',
            [nativeSpan({ started_at: '2026-01-01T00:00:01Z', ended_at: '2026-01-01T00:00:00Z' })],
            422,
            [expect.objectContaining({ loc: ['body', 0, 'ended_at'] })],
          ],
        ];
        for (const [name, body, status, detail] of cases) {
          it(`${name} → ${status}, nothing stored`, async () => {
            const marker = `sess-bad-${name.replace(/\W/g, '-')}`;
            const withMarker = Array.isArray(body)
              ? body.map((s) => ({ ...(s as object), session_id: marker }))
              : body;
            const res = await postJson(`${base}/api/traces/spans`, withMarker);
            expect(res.status).toBe(status);
            expect(res.json).toEqual({ detail });
            expect(await spansOf(`session_id=${marker}`)).toEqual([]);
          });
        }

        it('rejects an oversize body with 413 and keeps serving', async () => {
          const big = JSON.stringify([nativeSpan({ llm_input: 'x'.repeat(11 * 1024 * 1024) })]);
          const res = await postJson(`${base}/api/traces/spans`, big);
          expect(res.status).toBe(413);
          expect(res.json.detail).toMatch(/too large/);
          expect((await getJson(`${base}/api/liveness`)).status).toBe(200);
        });

        it('rejects a wrong content type with 415', async () => {
          const res = await fetchUrl(`${base}/api/traces/spans`, {
            method: 'POST',
            headers: { 'content-type': 'text/plain' },
            body: 'hi',
          });
          expect(res.status).toBe(415);
          expect(await res.json()).toEqual({ detail: expect.any(String) });
        });

        it('rejects a batch over 10,000 spans', async () => {
          const span = nativeSpan({
            session_id: 'sess-too-many',
            input_args: null,
            output_result: null,
          });
          const res = await postJson(
            `${base}/api/traces/spans`,
            Array.from({ length: 10_001 }, () => span),
          );
          expect(res.status).toBe(422);
          expect(await spansOf('session_id=sess-too-many')).toEqual([]);
        });

        it('rejects a bad query with 422', async () => {
          const res = await getJson(`${base}/api/traces/spans?limit=5000`);
          expect(res.status).toBe(422);
          expect(res.json.detail[0].loc).toEqual(['query', 'limit']);
        });
      });

      describe('redaction and catalogs', () => {
        it('drops payloads before storage when redact_payloads is on', async () => {
          const put = await fetchUrl(`${base}/api/settings`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ redact_payloads: true }),
          });
          expect(await put.json()).toEqual({ redact_payloads: true });
          await postJson(`${base}/api/traces/spans`, [
            nativeSpan({
              session_id: 'sess-redact',
              llm_input: 'secret prompt',
              llm_output: 'secret answer',
            }),
          ]);
          const [s] = await spansOf('session_id=sess-redact');
          expect(s).toMatchObject({
            input_args: null,
            output_result: null,
            llm_input: null,
            llm_output: null,
          });
          await fetchUrl(`${base}/api/settings`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ redact_payloads: false }),
          });
          expect((await getJson(`${base}/api/settings`)).json).toEqual({ redact_payloads: false });
        });
      });

      describe('probes', () => {
        it('answers liveness, readiness and the deprecated status', async () => {
          expect((await getJson(`${base}/api/liveness`)).json).toEqual({ status: 'ok' });
          expect((await getJson(`${base}/api/readiness`)).json).toEqual({ status: 'ready' });
          const status = await getJson(`${base}/api/status`);
          expect(status.status).toBe(200);
          expect(status.headers.get('deprecation')).toBe('true');
        });
        it('answers unknown routes with a JSON 404', async () => {
          const res = await getJson(`${base}/api/nope`);
          expect(res.status).toBe(404);
          expect(res.json.detail).toMatch(/no route/);
        });
      });
    },
  );
});
