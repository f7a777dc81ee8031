import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverBackends } from '../helpers/backends.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { getJson, nativeSpan, postJson } from '../helpers/spans.ts';

/**
 * Data PostgreSQL would refuse deterministically must be answered as the client's mistake (422,
 * naming every problem), never as an outage (503: exporters retry, then drop the whole batch).
 */

/** JSON text of `spans`, with "@@name@@" placeholders replaced by raw JSON that JSON.stringify cannot write. */
function rawBatch(spans: Record<string, unknown>[], raw: Record<string, string>): string {
  let text = JSON.stringify(spans);
  for (const [name, value] of Object.entries(raw)) text = text.replaceAll(`"@@${name}@@"`, value);
  return text;
}

const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe.each(serverBackends)('$name', ({ name, available, env }) => {
  describe.runIf(available)(
    available ? 'bad native data' : `bad native data (skipped: no ${name})`,
    () => {
      let server: InProcessApp;
      let base: string;
      beforeAll(async () => {
        server = await startInProcessApp({ ...(await env()), SPYGLASS_RATE_LIMITS: 'off' });
        base = server.httpUrl;
      });
      afterAll(async () => server?.close());

      const spansOf = async (session: string) =>
        (await getJson(`${base}/api/traces/spans?session_id=${session}`)).json as any[];
      const post = (body: unknown) => postJson(`${base}/api/traces/spans`, body);

      it('answers out-of-range numbers and dates and runaway nesting with one 422 naming each span and field', async () => {
        const session = 'bad-native-1';
        const body = rawBatch(
          [
            nativeSpan({ session_id: session }),
            nativeSpan({ session_id: session, input_tokens: 2 ** 31 }),
            nativeSpan({
              session_id: session,
              started_at: '0000-01-01T00:00:00Z',
              ended_at: '0000-01-01T00:00:01Z',
            }),
            nativeSpan({ session_id: session, latency_ms: '@@inf@@', output_tokens: '@@inf@@' }),
            nativeSpan({ session_id: session, input_args: '@@deep@@' }),
            nativeSpan({ session_id: session, tool_name: 'é'.repeat(600) }),
          ],
          { inf: '1e309', deep: deep(10_000) },
        );
        const res = await post(body);
        expect(res.status).toBe(422);
        const locs = (res.json.detail as { loc: unknown[] }[]).map((d) => d.loc.join('.'));
        expect(locs).toEqual([
          'body.1.input_tokens',
          'body.2.started_at',
          'body.2.ended_at',
          'body.3.latency_ms',
          'body.3.output_tokens',
          'body.4.input_args',
          'body.5.tool_name',
        ]);
        expect(res.json.detail[5].msg).toBe('Input should nest at most 32 levels');
        expect(await spansOf(session)).toEqual([]);
      });

      it('reports every problem of every span, up to 100, then how many more', async () => {
        const session = 'bad-native-22';
        const twoBad = [
          nativeSpan({ session_id: session, status: 'meh', input_tokens: -1 }),
          nativeSpan({ session_id: session }),
          nativeSpan({ session_id: session, span_type: 'llm', started_at: 'soon' }),
        ];
        const few = await post(twoBad);
        expect(few.status).toBe(422);
        expect(
          (few.json.detail as { loc: unknown[] }[]).map((d) => d.loc.join('.')).sort(),
        ).toEqual([
          'body.0.input_tokens',
          'body.0.status',
          'body.2.span_type',
          'body.2.started_at',
        ]);

        const many = await post(
          Array.from({ length: 60 }, () =>
            nativeSpan({ session_id: session, status: 'meh', output_tokens: 2 ** 40 }),
          ),
        );
        expect(many.status).toBe(422);
        expect(many.json.detail).toHaveLength(101);
        expect(many.json.detail[100]).toEqual({
          loc: ['body'],
          msg: '20 more problems not listed',
          type: 'too_many_errors',
        });
        expect(await spansOf(session)).toEqual([]);
      });

      it('replaces lone surrogates instead of failing the batch', async () => {
        const session = 'surrogates';
        const body = JSON.stringify([
          nativeSpan({
            session_id: session,
            span_id: 'lone-1',
            tool_name: 'x\ud800',
            error: '\udc00y',
            input_args: { 'k\ud800': ['v\udfff', { deep: 'ok \ud83d\ude00' }] },
          }),
        ]);
        expect(body).toContain('\\ud800'); // JSON.stringify escapes lone surrogates, as clients send them
        const res = await post(body);
        expect(res.status).toBe(202);
        const [s] = await spansOf(session);
        expect(s).toMatchObject({
          tool_name: 'x\uFFFD',
          error: '\uFFFDy',
          input_args: { 'k\uFFFD': ['v\uFFFD', { deep: 'ok \ud83d\ude00' }] },
        });
      });

      it('counts only newly stored spans as accepted and reports the rest as duplicates', async () => {
        const a = nativeSpan({ session_id: 'dups', span_id: 'dup-a' });
        const b = nativeSpan({ session_id: 'dups', span_id: 'dup-b' });
        expect((await post([a, a, b])).json).toEqual({ accepted: 2, duplicates: 1 });
        expect((await post([a, b])).json).toEqual({ accepted: 0, duplicates: 2 });
        expect(await spansOf('dups')).toHaveLength(2);
        expect((await getJson(`${base}/api/agents/sessions/dups`)).json.session.span_count).toBe(2);
      });

      it('answers 404 to a span naming a project that does not exist, and stores it once the project is created', async () => {
        const span = nativeSpan({ session_id: 'ghost-project', project_id: 'ghost' });
        const res = await post([span]);
        expect(res.status).toBe(404);
        expect(res.json.detail).toMatch(/project "ghost" does not exist/);
        expect(await spansOf('ghost-project')).toEqual([]);
        expect(
          (await postJson(`${base}/api/projects`, { id: 'ghost', name: 'Ghost' })).status,
        ).toBe(201);
        expect((await post([span])).json).toEqual({ accepted: 1, duplicates: 0 });
      });

      it('stores no output_result for a failed call (spec §2.1)', async () => {
        await post([
          nativeSpan({
            session_id: 'err-output',
            status: 'error',
            error: 'boom',
            output_result: '"partial"',
          }),
        ]);
        const [s] = await spansOf('err-output');
        expect(s).toMatchObject({ status: 'error', error: 'boom', output_result: null });
      });
    },
  );
});
