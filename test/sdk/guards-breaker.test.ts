import { describe, expect, it } from 'vitest';
import { DEFAULT_PREVENTION, type PreventionConfig } from '../../sdk/src/config.ts';
import { CircuitBreakerOpenError } from '../../sdk/src/errors.ts';
import { CircuitBreakers, MAX_BREAKERS, type Verdict } from '../../sdk/src/guards/index.ts';

// docs/sdk.md#circuit-breaker: closed → open → half-open → closed / open, per agent + server.
const CFG: PreventionConfig = {
  ...DEFAULT_PREVENTION,
  cb_failure_threshold: 3,
  cb_cooldown_seconds: 30,
  cb_half_open_max_calls: 2,
};
const T0 = Date.parse('2026-01-01T00:00:00Z');

function setup() {
  let now = T0;
  const cb = new CircuitBreakers(() => now);
  const fail = (n: number, agent = 'a', server = 'everything', cfg = CFG) => {
    for (let i = 0; i < n; i++) {
      expect(cb.before(agent, server, 's', cfg).allowed).toBe(true);
      cb.after(agent, server, false, cfg);
    }
  };
  return { cb, fail, advance: (ms: number) => (now += ms) };
}

function refused(v: Verdict): CircuitBreakerOpenError {
  if (v.allowed) throw new Error('expected a refused call');
  expect(v.error).toBeInstanceOf(CircuitBreakerOpenError);
  return v.error as CircuitBreakerOpenError;
}

describe('circuit breaker', () => {
  it('closed → open after open_after_failures consecutive failures; calls are then refused immediately', () => {
    const { cb, fail } = setup();
    fail(2);
    expect(cb.state('a', 'everything')).toBe('closed');
    fail(1);
    expect(cb.state('a', 'everything')).toBe('open');
    const err = refused(cb.before('a', 'everything', 'sess-9', CFG));
    expect(err.healthTag).toBe('circuit_breaker_open');
    expect(err.details).toMatchObject({
      guard: 'circuit_breaker',
      sessionId: 'sess-9',
      agentName: 'a',
      serverName: 'everything',
      retryAt: T0 + 30_000,
    });
    expect(err.message).toBe(
      'Circuit breaker open: calls from agent a to server everything are blocked after 3 consecutive failures; a trial call is allowed after 2026-01-01T00:00:30.000Z',
    );
  });

  it('below the threshold a closed breaker lets every call through', () => {
    const { cb, fail } = setup();
    fail(2);
    for (let i = 0; i < 20; i++) expect(cb.before('a', 'everything', 's', CFG).allowed).toBe(true);
    expect(cb.state('a', 'everything')).toBe('closed');
  });

  it('a success resets the consecutive failure count', () => {
    const { cb, fail } = setup();
    fail(2);
    cb.after('a', 'everything', true, CFG);
    fail(2);
    expect(cb.state('a', 'everything')).toBe('closed');
    expect(cb.size).toBe(1);
    cb.after('a', 'everything', true, CFG);
    expect(cb.size).toBe(0);
  });

  it('is kept per agent and per server', () => {
    const { cb, fail } = setup();
    fail(3, 'a', 'everything');
    expect(cb.before('b', 'everything', 's', CFG).allowed).toBe(true);
    expect(cb.before('a', 'github', 's', CFG).allowed).toBe(true);
    expect(cb.before('a', 'everything', 's', CFG).allowed).toBe(false);
  });

  it('open → half-open when cooldown_seconds have elapsed; at most half_open_max_calls trial calls', () => {
    const { cb, fail, advance } = setup();
    fail(3);
    advance(29_999);
    expect(cb.before('a', 'everything', 's', CFG).allowed).toBe(false);
    advance(1);
    expect(cb.state('a', 'everything')).toBe('half_open');
    expect(cb.before('a', 'everything', 's', CFG).allowed).toBe(true);
    expect(cb.before('a', 'everything', 's', CFG).allowed).toBe(true);
    const err = refused(cb.before('a', 'everything', 's', CFG));
    expect(err.message).toBe(
      'Circuit breaker half-open: server everything is being tested with 2 trial calls from agent a; further calls are refused until they succeed',
    );
  });

  it('half-open → closed when the trial calls succeed', () => {
    const { cb, fail, advance } = setup();
    fail(3);
    advance(30_000);
    for (let i = 0; i < 2; i++) expect(cb.before('a', 'everything', 's', CFG).allowed).toBe(true);
    cb.after('a', 'everything', true, CFG);
    expect(cb.state('a', 'everything')).toBe('half_open');
    cb.after('a', 'everything', true, CFG);
    expect(cb.state('a', 'everything')).toBe('closed');
    for (let i = 0; i < 5; i++) expect(cb.before('a', 'everything', 's', CFG).allowed).toBe(true);
  });

  it('half-open → open when a trial call fails, with the cooldown restarted', () => {
    const { cb, fail, advance } = setup();
    fail(3);
    advance(30_000);
    expect(cb.before('a', 'everything', 's', CFG).allowed).toBe(true);
    advance(5_000);
    cb.after('a', 'everything', false, CFG);
    expect(cb.state('a', 'everything')).toBe('open');
    const err = refused(cb.before('a', 'everything', 's', CFG));
    expect(err.details.retryAt).toBe(T0 + 65_000);
    expect(err.message).toBe(
      'Circuit breaker open: calls from agent a to server everything are blocked after a trial call failed; a trial call is allowed after 2026-01-01T00:01:05.000Z',
    );
    advance(29_999);
    expect(cb.before('a', 'everything', 's', CFG).allowed).toBe(false);
    advance(1);
    expect(cb.before('a', 'everything', 's', CFG).allowed).toBe(true);
  });

  it('a config change applies on the next call: lowered threshold opens, cb_enabled false lets calls pass', () => {
    const { cb, fail } = setup();
    fail(2);
    expect(cb.state('a', 'everything')).toBe('closed');
    refused(cb.before('a', 'everything', 's', { ...CFG, cb_failure_threshold: 2 }));
    expect(cb.before('a', 'everything', 's', { ...CFG, cb_enabled: false }).allowed).toBe(true);
    expect(cb.before('a', 'everything', 's', CFG).allowed).toBe(false);
    // Results while disabled do not count.
    const other = setup();
    other.fail(5, 'a', 'everything', { ...CFG, cb_enabled: false });
    expect(other.cb.state('a', 'everything')).toBe('closed');
  });

  it('a lengthened cooldown applies to a breaker already open', () => {
    const { cb, fail, advance } = setup();
    fail(3);
    advance(30_000);
    expect(cb.before('a', 'everything', 's', { ...CFG, cb_cooldown_seconds: 60 }).allowed).toBe(
      false,
    );
  });

  it(`keeps at most ${MAX_BREAKERS} breakers, dropping the least recently changed`, () => {
    const { cb } = setup();
    const one = { ...CFG, cb_failure_threshold: 1 };
    for (let i = 0; i <= MAX_BREAKERS; i++) cb.after('a', `server-${i}`, false, one);
    expect(cb.size).toBe(MAX_BREAKERS);
    expect(cb.state('a', 'server-0')).toBe('closed');
    expect(cb.state('a', `server-${MAX_BREAKERS}`)).toBe('open');
  });
});
