import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, call, expectStatus } from '../helpers/auth.ts';
import { serverBackends } from '../helpers/backends.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { SseClient } from '../helpers/sse.ts';
import { langsightTurn } from './wire.ts';

/**
 * A LangSight-style batch with every span type and field its SDK sends round-trips through REST,
 * GraphQL and the live stream (issue 24 items 5-7); cache and thinking tokens are priced.
 */

const ADMIN = bootstrapKey();
const LANGSIGHT_FIELDS = [
  'target_agent_name',
  'finish_reason',
  'cache_read_tokens',
  'cache_creation_tokens',
  'thinking_tokens',
  'lineage_provenance',
  'lineage_status',
  'schema_version',
  'replay_of',
];
const camel = (f: string) => f.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

describe.each(serverBackends)('$name', ({ available, env }) => {
  describe.runIf(available)('LangSight batch round trip', () => {
    let server: TestServer;
    let sse: SseClient;
    const turn = langsightTurn('ls-trip', Date.now() - 5000);
    const sent = new Map(turn.spans.map((s) => [s.span_id as string, s]));
    const req = (method: string, path: string, body?: unknown) =>
      call(server.httpUrl, method, path, { key: ADMIN, body });

    beforeAll(async () => {
      server = await startTestServer({
        ...(await env()),
        SPYGLASS_API_KEYS: ADMIN,
        SPYGLASS_RATE_LIMITS: 'off',
      });
      // Per 1M tokens: input 1, output 2, cache read 0.1, cache write 1.25.
      expectStatus(
        await req('POST', '/api/costs/models', {
          model_id: 'claude-sonnet-4-5',
          provider: 'anthropic',
          input_per_1m_usd: 1,
          output_per_1m_usd: 2,
          cache_read_per_1m_usd: 0.1,
          cache_write_per_1m_usd: 1.25,
          effective_from: new Date(Date.now() - 86_400_000).toISOString(),
        }),
        201,
        'price',
      );
      sse = await SseClient.open(`${server.httpUrl}/api/live/events`, { 'x-api-key': ADMIN });
      expect((await req('POST', '/api/traces/spans', turn.spans)).json).toEqual({
        accepted: 6,
        duplicates: 0,
      });
    });
    afterAll(async () => {
      sse?.close();
      await server?.dispose();
    });

    it('REST returns every field as sent', async () => {
      const spans = expectStatus(
        await req('GET', '/api/traces/spans?session_id=ls-trip'),
        200,
        'spans',
      ).json as Record<string, unknown>[];
      expect(spans).toHaveLength(6);
      for (const got of spans) {
        const want = sent.get(got.span_id as string)!;
        for (const f of LANGSIGHT_FIELDS)
          expect(got[f], `${String(got.span_id)}.${f}`).toEqual(want[f] ?? null);
        expect(got).toMatchObject({
          span_type: want.span_type,
          project_id: 'default',
          session_id: 'ls-trip',
        });
      }
      expect(spans.find((s) => s.span_id === turn.ids.handoff)?.target_agent_name).toBe(
        'billing-agent',
      );
    });

    it('prices cache and thinking tokens: input 1200×1 + (output 80 + thinking 300)×2 + cache read 4000×0.1 + cache write 500×1.25', async () => {
      const [llm] = expectStatus(
        await req('GET', `/api/traces/spans?session_id=ls-trip&span_type=agent&tool_name=generate`),
        200,
        'llm',
      ).json;
      expect(llm.cost_usd).toBeCloseTo(0.002985, 9);
      expect(llm.cost_estimated).toBe(false);
      const { session } = expectStatus(
        await req('GET', '/api/agents/sessions/ls-trip'),
        200,
        'session',
      ).json;
      expect(session.est_cost_usd).toBeCloseTo(0.002985, 6);
    });

    it('GraphQL returns them', async () => {
      const fields = LANGSIGHT_FIELDS.map(camel).join(' ');
      const r = await req('POST', '/graphql', {
        query: `{ session(sessionId: "ls-trip") { tree { span { spanId ${fields} } } } }`,
      });
      expect(r.json.errors).toBeUndefined();
      for (const { span } of r.json.data.session.tree) {
        const want = sent.get(span.spanId)!;
        for (const f of LANGSIGHT_FIELDS)
          expect(span[camel(f)], `${span.spanId}.${f}`).toEqual(want[f] ?? null);
      }
    });

    it('the live stream carries them', async () => {
      await sse.waitFor(
        () => sse.events.filter((e) => e.data.includes('ls-trip')).length === 6,
        5000,
      );
      for (const e of sse.events.filter((x) => x.data.includes('ls-trip'))) {
        const data = JSON.parse(e.data) as Record<string, unknown>;
        const want = sent.get(data.span_id as string)!;
        for (const f of LANGSIGHT_FIELDS)
          expect(data[f], `${String(data.span_id)}.${f}`).toEqual(want[f] ?? null);
      }
    });
  });
});
