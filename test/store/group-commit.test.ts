import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getJson, nativeSpan, postJson } from '../helpers/spans.ts';

/** Every span of a session, newest first, following X-Next-Cursor (the API returns at most 1000 a page). */
async function sessionSpans(base: string, sessionId: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const res = await getJson(
      `${base}/api/traces/spans?session_id=${encodeURIComponent(sessionId)}&limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(res.status).toBe(200);
    out.push(...(res.json as any[]));
    cursor = res.headers.get('x-next-cursor');
    if (!cursor) return out;
  }
  throw new Error('more than 100 pages');
}

// The group-commit writer (src/ingest/writer.ts) through the real HTTP API, on each storage back end.
describe.each(backends)('$name', ({ name, available, env }) => {
  describe.runIf(available)(
    available ? 'group commit' : `group commit (skipped: no ${name} in this run)`,
    () => {
      let server: TestServer;
      let base: string;

      beforeAll(async () => {
        server = await startTestServer(await env());
        base = server.httpUrl;
      });
      afterAll(async () => {
        await server?.dispose();
      });

      it('acknowledges 50 concurrent requests of 25 spans and stores all 1250 spans', async () => {
        const session = `gc-${randomUUID()}`;
        const batches = Array.from({ length: 50 }, (_, r) =>
          Array.from({ length: 25 }, (_, i) =>
            nativeSpan({
              span_id: `gc-${r}-${i}-${randomUUID()}`,
              session_id: session,
              tool_name: `tool-${r}`,
            }),
          ),
        );
        const results = await Promise.all(
          batches.map((b) => postJson(`${base}/api/traces/spans`, b)),
        );
        expect(results.map((r) => r.status)).toEqual(Array(50).fill(202));
        expect(results.map((r) => r.json)).toEqual(Array(50).fill({ accepted: 25, duplicates: 0 }));

        const stored = await sessionSpans(base, session);
        expect(stored).toHaveLength(1250);
        expect(new Set(stored.map((s) => s.span_id))).toEqual(
          new Set(batches.flat().map((s) => s.span_id)),
        );
        // Acknowledged means committed: nothing is left in the writer's queue.
        expect(server.services.writer.pendingSpans).toBe(0);
      });

      it('keeps every session rollup exact when concurrent requests interleave many sessions', async () => {
        // 12 sessions; each of 30 concurrent requests carries one span of every session. Tool "flaky"
        // fails in the first half and succeeds from request 20 on; tool "broken" fails in odd sessions only.
        const run = randomUUID().slice(0, 8);
        const t0 = Date.now() - 600_000;
        const requests = Array.from({ length: 30 }, (_, r) =>
          Array.from({ length: 12 }, (_, s) => {
            const broken = s % 2 === 1 && r === 29;
            return nativeSpan({
              span_id: `il-${run}-${r}-${s}`,
              session_id: `il-${run}-${s}`,
              tool_name: broken ? 'broken' : 'flaky',
              status: broken || r < 15 ? 'error' : 'success',
              started_at: new Date(t0 + r * 1000).toISOString(),
              ended_at: new Date(t0 + r * 1000 + 5).toISOString(),
            });
          }),
        );
        const results = await Promise.all(
          requests.map((b) => postJson(`${base}/api/traces/spans`, b)),
        );
        expect(results.map((r) => r.status)).toEqual(Array(30).fill(202));
        const since = new Date(t0 - 1000).toISOString();
        const sessions = (
          (await getJson(`${base}/api/agents/sessions?since=${since}&limit=1000`)).json as any[]
        ).filter((x) => x.session_id.startsWith(`il-${run}-`));
        expect(sessions).toHaveLength(12);
        for (const x of sessions) {
          const odd = Number(x.session_id.split('-').at(-1)) % 2 === 1;
          expect(x).toMatchObject({
            span_count: 30,
            tool_calls: 30,
            failed_calls: odd ? 16 : 15,
            health_tag: odd ? 'tool_failure' : 'success_with_fallback',
          });
        }
      });

      it('strips NUL characters and stores the batch without failing its neighbours', async () => {
        const session = `nul-${randomUUID()}`;
        const nulSpan = nativeSpan({
          span_id: `nul-${randomUUID()}`,
          session_id: session,
          tool_name: 'read\u0000file',
          error: 'bad\u0000byte',
          output_result: '\u0000"hello"\u0000',
          llm_input: 'prompt with a \u0000 in it',
          llm_output: '\u0000',
          input_args: { path: '/tmp/\u0000a.txt', nested: { list: ['x\u0000y'] }, 'k\u0000ey': 1 },
        });
        // Send the NUL batch among concurrent clean ones so they share a group commit.
        const neighbours = Array.from({ length: 10 }, (_, r) =>
          Array.from({ length: 5 }, () =>
            nativeSpan({ span_id: `nb-${r}-${randomUUID()}`, session_id: session }),
          ),
        );
        const results = await Promise.all([
          ...neighbours.slice(0, 5).map((b) => postJson(`${base}/api/traces/spans`, b)),
          postJson(`${base}/api/traces/spans`, [nativeSpan({ session_id: session }), nulSpan]),
          ...neighbours.slice(5).map((b) => postJson(`${base}/api/traces/spans`, b)),
        ]);
        expect(results.map((r) => r.status)).toEqual(Array(11).fill(202));

        const stored = await sessionSpans(base, session);
        expect(stored).toHaveLength(10 * 5 + 2);
        const got = stored.find((s) => s.span_id === nulSpan.span_id);
        expect(got).toMatchObject({
          tool_name: 'readfile',
          error: 'badbyte',
          output_result: '"hello"',
          llm_input: 'prompt with a  in it',
          llm_output: '',
          input_args: { path: '/tmp/a.txt', nested: { list: ['xy'] }, key: 1 },
        });
      });
    },
  );
});
