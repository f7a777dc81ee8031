import { describe, expect, it } from 'vitest';
import { DEFAULT_PREVENTION, type PreventionConfig } from '../../sdk/src/config.ts';
import { LoopDetectedError } from '../../sdk/src/errors.ts';
import { SessionGuard, type CallIdentity, type Verdict } from '../../sdk/src/guards/index.ts';

// docs/sdk.md#guards, loop rows: repetition, ping-pong, retry without progress, warn, terminate.
const WARN: PreventionConfig = { ...DEFAULT_PREVENTION, loop_threshold: 3 };
const TERMINATE: PreventionConfig = { ...WARN, loop_action: 'terminate' };
const newGuard = () =>
  new SessionGuard({ sessionId: 's1', agentName: 'researcher', clock: () => 0 });
const call = (toolName: string, args: unknown = {}): CallIdentity => ({
  agentName: 'researcher',
  serverName: 'docs',
  toolName,
  args,
});

function blocked(v: Verdict): LoopDetectedError {
  if (v.allowed) throw new Error('expected a blocked call');
  expect(v.error).toBeInstanceOf(LoopDetectedError);
  return v.error as LoopDetectedError;
}

describe('loop detection', () => {
  it('repetition: the N-th identical call in a row is blocked under terminate, and the session stays terminated', () => {
    const g = newGuard();
    for (let i = 0; i < 2; i++)
      expect(g.beforeCall(call('search_docs', { q: 'x' }), TERMINATE).allowed).toBe(true);
    const err = blocked(g.beforeCall(call('search_docs', { q: 'x' }), TERMINATE));
    expect(err.details).toMatchObject({
      guard: 'loop_repetition',
      sessionId: 's1',
      agentName: 'researcher',
      toolName: 'search_docs',
      limit: 3,
      observed: 3,
    });
    expect(err.message).toBe(
      'Loop detected: search_docs called 3 times in a row with the same arguments (threshold 3); session terminated',
    );
    expect(g.terminated).toBe(err);
    expect(g.tag).toBe('loop_detected');
    expect(g.steps).toBe(2);
    // Any later call, even a different one, is refused with the same error.
    expect(blocked(g.beforeCall(call('other'), TERMINATE))).toBe(err);
  });

  it('repetition: different arguments break the run', () => {
    const g = newGuard();
    for (const q of ['a', 'a', 'b', 'b', 'a', 'a'])
      expect(g.beforeCall(call('search_docs', { q }), TERMINATE).allowed).toBe(true);
    expect(g.tag).toBeNull();
  });

  it('repetition: with threshold 1 a single call is no loop; the second identical one is', () => {
    const g = newGuard();
    const cfg = { ...TERMINATE, loop_threshold: 1 };
    expect(g.beforeCall(call('search_docs', { q: 'x' }), cfg).allowed).toBe(true);
    expect(blocked(g.beforeCall(call('search_docs', { q: 'x' }), cfg)).details).toMatchObject({
      guard: 'loop_repetition',
      limit: 2,
      observed: 2,
    });
  });

  it('repetition: the same tool name on another server is another tool', () => {
    const g = newGuard();
    for (const serverName of ['docs', 'web', 'docs']) {
      expect(
        g.beforeCall({ ...call('search'), serverName }, { ...TERMINATE, loop_threshold: 2 })
          .allowed,
      ).toBe(true);
    }
  });

  it('ping-pong: alternating between two calls is blocked when the alternation reaches max(N, 4)', () => {
    const g = newGuard();
    const a = call('search_docs', { q: 'x' });
    const b = call('fetch_page', { url: 'u' });
    for (const c of [a, b, a]) expect(g.beforeCall(c, TERMINATE).allowed).toBe(true);
    const err = blocked(g.beforeCall(b, TERMINATE));
    expect(err.details).toMatchObject({
      guard: 'loop_ping_pong',
      toolName: 'fetch_page',
      limit: 4,
      observed: 4,
    });
    expect(err.message).toBe(
      'Loop detected: search_docs and fetch_page called alternately 4 times in a row (threshold 4); session terminated',
    );
  });

  it('ping-pong: with N = 6 the 6th alternating call is the one blocked; a third call breaks the alternation', () => {
    const g = newGuard();
    const cfg = { ...TERMINATE, loop_threshold: 6 };
    const [a, b, c] = [call('t', { v: 1 }), call('t', { v: 2 }), call('t', { v: 3 })];
    for (const x of [a, b, a, b, c, a, b, a, b, a]) expect(g.beforeCall(x, cfg).allowed).toBe(true);
    expect(blocked(g.beforeCall(b, cfg)).details.guard).toBe('loop_ping_pong');
  });

  it('retry without progress: after N identical failures of a tool, another call to it is blocked (any arguments)', () => {
    const g = newGuard();
    for (let i = 0; i < 3; i++) {
      const c = call('create_issue', { title: `t${i}` });
      expect(g.beforeCall(c, TERMINATE).allowed).toBe(true);
      expect(
        g.afterCall(c, { ok: false, error: 'HTTP 503: upstream unavailable' }, 0, TERMINATE),
      ).toBeNull();
    }
    // Another tool is not affected.
    expect(g.beforeCall(call('search_docs'), TERMINATE).allowed).toBe(true);
    const err = blocked(g.beforeCall(call('create_issue', { title: 'new' }), TERMINATE));
    expect(err.details).toMatchObject({
      guard: 'loop_retry_without_progress',
      toolName: 'create_issue',
      limit: 3,
      observed: 3,
    });
    expect(err.message).toContain('"HTTP 503: upstream unavailable"');
  });

  it('retry without progress: a different error text or a success starts over', () => {
    const g = newGuard();
    const c = (i: number) => call('create_issue', { i });
    const outcomes = [
      { ok: false, error: 'e1' },
      { ok: false, error: 'e1' },
      { ok: false, error: 'e2' },
      { ok: false, error: 'e2' },
      { ok: true },
      { ok: false, error: 'e2' },
      { ok: false, error: 'e2' },
    ];
    outcomes.forEach((o, i) => {
      expect(g.beforeCall(c(i), TERMINATE).allowed).toBe(true);
      g.afterCall(c(i), o, 0, TERMINATE);
    });
    expect(g.beforeCall(c(99), TERMINATE).allowed).toBe(true);
  });

  it('warn: looping calls proceed tagged loop_detected, the warning comes once per run, the session keeps the tag', () => {
    const g = newGuard();
    const verdicts = Array.from({ length: 5 }, () =>
      g.beforeCall(call('search_docs', { q: 'x' }), WARN),
    );
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, true, true]);
    expect(verdicts.map((v) => (v.allowed ? v.healthTag : null))).toEqual([
      null,
      null,
      'loop_detected',
      'loop_detected',
      'loop_detected',
    ]);
    const warnings = verdicts.map((v) => (v.allowed ? v.warning : null));
    expect(warnings[2]).toBe(
      'Loop detected: search_docs called 3 times in a row with the same arguments (threshold 3); the call proceeds (loop_action warn)',
    );
    expect(warnings.filter((w) => w !== null)).toHaveLength(1);
    expect(g.terminated).toBeNull();
    expect(g.steps).toBe(5);
    expect(g.beforeCall(call('other'), WARN)).toEqual({
      allowed: true,
      healthTag: null,
      warning: null,
    });
    expect(g.tag).toBe('loop_detected');
  });

  it('warn: the N-th identical failure itself is tagged, and the next call to that tool warns', () => {
    const g = newGuard();
    const tags = [0, 1, 2].map(() => {
      g.beforeCall(call('create_issue', { n: Math.random() }), WARN);
      return g.afterCall(call('create_issue'), { ok: false, error: 'boom' }, 0, WARN);
    });
    expect(tags).toEqual([null, null, 'loop_detected']);
    const v = g.beforeCall(call('create_issue', { n: 7 }), WARN);
    expect(v).toMatchObject({ allowed: true, healthTag: 'loop_detected' });
    expect(v.allowed && v.warning).toContain(
      'create_issue called again after failing 3 times in a row with the same error "boom"',
    );
  });

  it('float arguments differing beyond 6 decimals are the same call', () => {
    const g = newGuard();
    for (const lat of [52.5200001, 52.5200002])
      expect(g.beforeCall(call('weather', { at: { lat, lon: 13.4 } }), TERMINATE).allowed).toBe(
        true,
      );
    expect(
      blocked(g.beforeCall(call('weather', { at: { lon: 13.4, lat: 52.52 } }), TERMINATE)).details
        .guard,
    ).toBe('loop_repetition');
  });

  it('a config change between calls applies at once: threshold, action, and switching detection off and on', () => {
    const g = newGuard();
    const c = call('search_docs', { q: 'x' });
    for (let i = 0; i < 3; i++)
      expect(g.beforeCall(c, { ...TERMINATE, loop_threshold: 10 }).allowed).toBe(true);
    // Lowered to 4: the 4th identical call is now blocked.
    expect(blocked(g.beforeCall(c, { ...TERMINATE, loop_threshold: 4 })).details).toMatchObject({
      guard: 'loop_repetition',
      limit: 4,
    });

    const h = newGuard();
    for (let i = 0; i < 4; i++)
      expect(h.beforeCall(c, { ...TERMINATE, loop_enabled: false }).allowed).toBe(true);
    // Turned back on: the run starts from the first call after it.
    expect(h.beforeCall(c, TERMINATE).allowed).toBe(true);
    expect(h.beforeCall(c, WARN)).toMatchObject({ allowed: true, healthTag: null });
    expect(h.beforeCall(c, WARN)).toMatchObject({ allowed: true, healthTag: 'loop_detected' });
    expect(blocked(h.beforeCall(c, TERMINATE)).details.observed).toBe(4);
  });
});
