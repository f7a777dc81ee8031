import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';
import { getJson, nativeSpan, postJson } from '../helpers/spans.ts';

let server: InProcessApp;
beforeAll(async () => {
  server = await startInProcessApp({ SPYGLASS_RATE_LIMITS: 'off' });
});
afterAll(async () => server?.close());

let seq = 0;
/** Spans of one session, one second apart in the order given. */
function session(id: string, calls: Record<string, unknown>[]) {
  const t0 = Date.now() - 60_000;
  return calls.map((c, i) =>
    nativeSpan({
      session_id: id,
      started_at: new Date(t0 + i * 1000).toISOString(),
      ended_at: new Date(t0 + i * 1000 + 10).toISOString(),
      span_id: `tag-${seq++}`,
      ...c,
    }),
  );
}
async function tagOf(id: string, batches: Record<string, unknown>[][]) {
  for (const b of batches)
    expect((await postJson(`${server.httpUrl}/api/traces/spans`, b)).status).toBe(202);
  const res = await getJson(`${server.httpUrl}/api/agents/sessions/${id}`);
  return res.json.session.health_tag as string;
}

const ok = { status: 'success' };
const fail = { status: 'error', error: 'boom' };

describe('session health tags (decisions §4)', () => {
  const single: [string, Record<string, unknown>[]][] = [
    ['success', [ok, ok]],
    ['success_with_fallback', [fail, ok]],
    ['tool_failure', [ok, fail]],
    ['timeout', [ok, { status: 'timeout', error: 'took too long' }]],
    ['loop_detected', [ok, { status: 'prevented', health_tag: 'loop_detected' }]],
    ['budget_exceeded', [ok, { status: 'prevented', health_tag: 'budget_exceeded' }]],
    ['circuit_breaker_open', [ok, { status: 'prevented', health_tag: 'circuit_breaker_open' }]],
    ['schema_drift', [ok, { health_tag: 'schema_drift' }]],
    ['budget_warning', [ok, { health_tag: 'budget_warning' }]],
  ];
  for (const [tag, calls] of single) {
    it(`tags ${tag}`, async () => {
      expect(await tagOf(`s-${tag}`, [session(`s-${tag}`, calls)])).toBe(tag);
    });
  }

  it('a failure is tool_failure unless the same tool later succeeds', async () => {
    const calls = session('s-other-tool', [fail, { ...ok, tool_name: 'write_file' }]);
    expect(await tagOf('s-other-tool', [calls])).toBe('tool_failure');
  });

  const precedence: [string, Record<string, unknown>[], string][] = [
    [
      'loop beats budget, breaker, timeout and failure',
      [
        fail,
        { status: 'timeout' },
        { health_tag: 'circuit_breaker_open' },
        { health_tag: 'budget_exceeded' },
        { health_tag: 'loop_detected' },
      ],
      'loop_detected',
    ],
    [
      'budget_exceeded beats circuit_breaker_open',
      [{ health_tag: 'circuit_breaker_open' }, { health_tag: 'budget_exceeded' }],
      'budget_exceeded',
    ],
    [
      'circuit_breaker_open beats timeout',
      [{ status: 'timeout' }, { health_tag: 'circuit_breaker_open' }],
      'circuit_breaker_open',
    ],
    [
      'timeout beats schema_drift',
      [{ health_tag: 'schema_drift' }, { status: 'timeout' }],
      'timeout',
    ],
    [
      'schema_drift beats tool_failure',
      [fail, { ...ok, tool_name: 'other', health_tag: 'schema_drift' }],
      'schema_drift',
    ],
    ['tool_failure beats budget_warning', [{ health_tag: 'budget_warning' }, fail], 'tool_failure'],
    [
      'budget_warning beats success_with_fallback',
      [fail, { ...ok, health_tag: 'budget_warning' }],
      'budget_warning',
    ],
  ];
  for (const [name, calls, tag] of precedence) {
    it(`precedence: ${name}`, async () => {
      const id = `p-${name.replace(/\W+/g, '-')}`;
      expect(await tagOf(id, [session(id, calls)])).toBe(tag);
    });
  }

  it('updates incrementally across batches, in any arrival order', async () => {
    const [f, s] = session('s-late-success', [fail, ok]);
    expect(await tagOf('s-late-success', [[f as Record<string, unknown>]])).toBe('tool_failure');
    expect(await tagOf('s-late-success', [[s as Record<string, unknown>]])).toBe(
      'success_with_fallback',
    );
    // The success arrives first, the earlier failure later: still recovered.
    const [f2, s2] = session('s-out-of-order', [fail, ok]);
    expect(
      await tagOf('s-out-of-order', [
        [s2 as Record<string, unknown>],
        [f2 as Record<string, unknown>],
      ]),
    ).toBe('success_with_fallback');
  });

  it('counts a retried span once', async () => {
    const batch = session('s-retried', [fail, ok]);
    await tagOf('s-retried', [batch, batch]);
    const res = await getJson(
      `${server.httpUrl}/api/agents/sessions?agent_name=planner&limit=1000`,
    );
    const row = res.json.find((x: any) => x.session_id === 's-retried');
    expect(row).toMatchObject({ tool_calls: 2, failed_calls: 1, span_count: 2 });
  });
});
