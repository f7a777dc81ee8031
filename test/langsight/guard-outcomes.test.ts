import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKey, call, expectStatus } from '../helpers/auth.ts';
import { serverBackends } from '../helpers/backends.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { at, microIso } from './wire.ts';

/**
 * LangSight's SDK reports a call its guards blocked as `status: "prevented"` with an error that
 * starts `loop_detected:`, `budget_exceeded:` or `circuit_breaker_open:` and no `health_tag`
 * (issue 24 item 8). The session takes the tag from that prefix and counts the prevented call.
 */

const ADMIN = bootstrapKey();
const BASE = Date.now() - 60_000;

function call_(
  session: string,
  i: number,
  status: string,
  error: string | null = null,
  extra: Record<string, unknown> = {},
) {
  return {
    span_id: `${session}-${i}`,
    trace_id: `${session}-trace`,
    session_id: session,
    project_id: '',
    agent_name: 'support-agent',
    span_type: 'tool_call',
    server_name: 'orders-mcp',
    tool_name: 'get_order',
    input_args: { order_id: 42 },
    started_at: microIso(at(BASE, i * 1000)),
    ended_at: microIso(at(BASE, i * 1000 + 500)),
    latency_ms: 0.5,
    status,
    error,
    ...extra,
  };
}

describe.each(serverBackends)('$name', ({ available, env }) => {
  describe.runIf(available)('LangSight guard outcomes reach the session', () => {
    let server: InProcessApp;
    const get = async (path: string) =>
      expectStatus(await call(server, 'GET', path, { key: ADMIN }), 200, path).json;

    beforeAll(async () => {
      server = await startInProcessApp({
        ...(await env()),
        SPYGLASS_API_KEYS: ADMIN,
        SPYGLASS_RATE_LIMITS: 'off',
      });
      const batch = [
        call_('g-loop', 0, 'success'),
        call_('g-loop', 1, 'success'),
        call_(
          'g-loop',
          2,
          'prevented',
          'loop_detected: get_order called 3 times with the same arguments',
        ),
        call_('g-budget', 0, 'success'),
        call_(
          'g-budget',
          1,
          'prevented',
          'budget_exceeded: session cost $1.02 exceeds max_cost_usd $1.00',
        ),
        ...[0, 1, 2].map((i) => call_('g-breaker', i, 'error', 'connection refused')),
        call_(
          'g-breaker',
          3,
          'prevented',
          'circuit_breaker_open: orders-mcp is open after 3 failures; retry in 30s',
        ),
        // A tag the client sent wins; a prefix on a call that was not prevented means nothing.
        call_('g-explicit', 0, 'prevented', 'loop_detected: x', { health_tag: 'budget_warning' }),
        call_('g-not-prevented', 0, 'success', 'loop_detected: only words'),
      ];
      expectStatus(
        await call(server, 'POST', '/api/traces/spans', { key: ADMIN, body: batch }),
        202,
        'ingest',
      );
    });
    afterAll(async () => server?.close());

    it.each([
      ['g-loop', 'loop_detected', 3, 0],
      ['g-budget', 'budget_exceeded', 2, 0],
      ['g-breaker', 'circuit_breaker_open', 4, 3],
      ['g-explicit', 'budget_warning', 1, 0],
    ])(
      '%s is tagged %s, with its prevented call counted apart from failures',
      async (id, tag, calls, failed) => {
        const { session } = await get(`/api/agents/sessions/${id}`);
        expect(session).toMatchObject({
          health_tag: tag,
          tool_calls: calls,
          failed_calls: failed,
          prevented_calls: 1,
        });
      },
    );

    it('the prevented span carries the derived tag, and a prefix on a successful call derives nothing', async () => {
      const [span] = await get('/api/traces/spans?session_id=g-loop&status=prevented');
      expect(span).toMatchObject({ status: 'prevented', health_tag: 'loop_detected' });
      const { session } = await get('/api/agents/sessions/g-not-prevented');
      expect(session).toMatchObject({ health_tag: 'success', prevented_calls: 0 });
    });

    it('the session list filters by the derived tag, and GraphQL reports preventedCalls', async () => {
      expect(
        (await get('/api/agents/sessions?health_tag=circuit_breaker_open')).map(
          (s: any) => s.session_id,
        ),
      ).toEqual(['g-breaker']);
      const r = await call(server, 'POST', '/graphql', {
        key: ADMIN,
        body: {
          query:
            '{ session(sessionId: "g-budget") { session { healthTag preventedCalls failedCalls } } }',
        },
      });
      expect(r.json.data.session.session).toEqual({
        healthTag: 'budget_exceeded',
        preventedCalls: 1,
        failedCalls: 0,
      });
    });
  });
});
