import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, call, expectStatus } from '../helpers/auth.ts';
import { serverBackends } from '../helpers/backends.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { SseClient } from '../helpers/sse.ts';
import { at, langsightTurn, microIso } from './wire.ts';

/**
 * LangSight's timestamps carry microseconds (`…28.410233Z`); they were cut to milliseconds, so
 * spans inside one millisecond lost their order (issue 24 item 7). They are kept end to end.
 */

const ADMIN = bootstrapKey();

describe.each(serverBackends)('$name', ({ available, env }) => {
  describe.runIf(available)('LangSight microsecond timestamps', () => {
    let server: TestServer;
    let sse: SseClient;
    const base = Date.now() - 5000;
    const turn = langsightTurn('ls-micro', base);
    const req = (method: string, path: string, body?: unknown) =>
      call(server.httpUrl, method, path, { key: ADMIN, body });

    beforeAll(async () => {
      server = await startTestServer({
        ...(await env()),
        SPYGLASS_API_KEYS: ADMIN,
        SPYGLASS_RATE_LIMITS: 'off',
      });
      sse = await SseClient.open(`${server.httpUrl}/api/live/events`, { 'x-api-key': ADMIN });
      // Sent newest first, so only the stored microseconds can put them back in order.
      expect((await req('POST', '/api/traces/spans', [...turn.spans].reverse())).json).toEqual({
        accepted: 6,
        duplicates: 0,
      });
    });
    afterAll(async () => {
      sse?.close();
      await server?.dispose();
    });

    it('REST returns the timestamps exactly as sent', async () => {
      const spans = expectStatus(
        await req('GET', '/api/traces/spans?session_id=ls-micro'),
        200,
        'spans',
      ).json as { span_id: string; started_at: string; ended_at: string }[];
      for (const s of spans) {
        const sent = turn.spans.find((x) => x.span_id === s.span_id)!;
        // Six digits when there are microseconds; `.410000Z` comes back as the same instant, `.410Z`.
        const same = (t: unknown) => String(t).replace(/(\.\d{3})000Z$/, '$1Z');
        expect([s.started_at, s.ended_at]).toEqual([same(sent.started_at), same(sent.ended_at)]);
      }
    });

    it('OTLP nanosecond times keep their microseconds', async () => {
      const ns = (BigInt(base) * 1_000_000n + 123_456_789n).toString();
      const endNs = (BigInt(base) * 1_000_000n + 125_000_001n).toString();
      const body = {
        resourceSpans: [
          {
            resource: {
              attributes: [{ key: 'service.name', value: { stringValue: 'otel-micro' } }],
            },
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: '0af7651916cd43dd8448eb211c80319c',
                    spanId: 'b7ad6b7169203331',
                    name: 'tools/call read_file',
                    kind: 3,
                    startTimeUnixNano: ns,
                    endTimeUnixNano: endNs,
                    attributes: [
                      { key: 'mcp.tool.name', value: { stringValue: 'read_file' } },
                      { key: 'mcp.server.name', value: { stringValue: 'fs' } },
                      { key: 'session.id', value: { stringValue: 'otel-micro' } },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      };
      expectStatus(await req('POST', '/v1/traces', body), 200, 'otlp');
      const [span] = expectStatus(
        await req('GET', '/api/traces/spans?session_id=otel-micro'),
        200,
        'spans',
      ).json as { started_at: string; ended_at: string }[];
      // …123,456,789 ns: rounded to the microsecond, as PostgreSQL rounds a time with more digits.
      expect(span?.started_at).toBe(microIso(BigInt(base) * 1000n + 123_457n));
      expect(span?.ended_at).toBe(new Date(base + 125).toISOString());
    });

    it('spans one microsecond apart inside one millisecond keep their order in the tree and the list', async () => {
      // The LLM span ends at …900_000 µs and its intent starts 1 µs later, the tool call 2 µs after that.
      const { spans } = expectStatus(
        await req('GET', '/api/agents/sessions/ls-micro'),
        200,
        'tree',
      ).json;
      expect(spans.map((s: any) => s.span_id)).toEqual([turn.ids.user, turn.ids.closing]);
      const newestFirst = expectStatus(
        await req('GET', '/api/traces/spans?session_id=ls-micro'),
        200,
        'list',
      ).json.map((s: any) => s.span_id);
      expect(newestFirst).toEqual([
        turn.ids.handoff,
        turn.ids.tool,
        turn.ids.intent,
        turn.ids.llm,
        turn.ids.closing,
        turn.ids.user,
      ]);
    });

    it('pages through spans of one millisecond without losing or repeating any', async () => {
      const t0 = Date.now() - 3000;
      const same = Array.from({ length: 7 }, (_, i) => ({
        span_id: `ms-${i}`,
        session_id: 'ls-same-ms',
        server_name: 'orders-mcp',
        tool_name: 'get_order',
        status: 'success',
        started_at: microIso(at(t0, 100 + i * 100)),
        ended_at: microIso(at(t0, 100 + i * 100 + 50)),
      }));
      expectStatus(await req('POST', '/api/traces/spans', same), 202, 'ingest');
      const seen: string[] = [];
      let cursor = '';
      for (let page = 0; page < 10; page++) {
        const r = expectStatus(
          await req(
            'GET',
            `/api/traces/spans?session_id=ls-same-ms&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
          ),
          200,
          'page',
        );
        seen.push(...r.json.map((s: any) => s.span_id));
        cursor = r.headers.get('x-next-cursor') ?? '';
        if (!cursor) break;
      }
      expect(seen).toEqual(['ms-6', 'ms-5', 'ms-4', 'ms-3', 'ms-2', 'ms-1', 'ms-0']);
      // latency_ms left out is computed to the microsecond.
      const [one] = expectStatus(
        await req('GET', '/api/traces/spans?session_id=ls-same-ms&limit=1'),
        200,
        'one',
      ).json;
      expect(one.latency_ms).toBe(0.05);
    });

    it('pages through sessions whose last calls share one millisecond', async () => {
      const t0 = Date.now() - 2000;
      const spans = ['s-a', 's-b', 's-c', 's-d'].map((id, i) => ({
        span_id: `${id}-1`,
        session_id: `ls-page-${id}`,
        server_name: 'orders-mcp',
        tool_name: 'get_order',
        status: 'success',
        agent_name: 'pager',
        started_at: microIso(at(t0, 100 + (3 - i) * 200)),
        ended_at: microIso(at(t0, 900)),
      }));
      expectStatus(await req('POST', '/api/traces/spans', spans), 202, 'ingest');
      const seen: string[] = [];
      let cursor = '';
      for (let page = 0; page < 10; page++) {
        const r = expectStatus(
          await req(
            'GET',
            `/api/agents/sessions?agent_name=pager&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
          ),
          200,
          'page',
        );
        seen.push(...r.json.map((x: any) => x.session_id));
        cursor = r.headers.get('x-next-cursor') ?? '';
        if (!cursor) break;
      }
      expect(seen).toEqual(['ls-page-s-a', 'ls-page-s-b', 'ls-page-s-c', 'ls-page-s-d']);
    });

    it('GraphQL gives the exact times beside its millisecond DateTime', async () => {
      const r = await req('POST', '/graphql', {
        query:
          '{ session(sessionId: "ls-micro") { tree { span { spanId startedAtIso endedAtIso } } } }',
      });
      const intent = r.json.data.session.tree.find(
        (n: any) => n.span.spanId === turn.ids.intent,
      ).span;
      const sent = turn.spans.find((s) => s.span_id === turn.ids.intent)!;
      expect([intent.startedAtIso, intent.endedAtIso]).toEqual([sent.started_at, sent.ended_at]);
    });

    it('the live event carries the microseconds', async () => {
      // Matched by span_id: a child's event names the intent too, as its parent_span_id.
      const intentEvent = () =>
        sse.events
          .map((e) => JSON.parse(e.data) as { span_id?: string; started_at?: string })
          .find((d) => d.span_id === turn.ids.intent);
      await sse.waitFor(() => intentEvent() !== undefined, 5000);
      const data = intentEvent()!;
      expect(data.started_at).toBe(
        turn.spans.find((s) => s.span_id === turn.ids.intent)!.started_at,
      );
    });
  });
});
