/**
 * Circuit breakers per agent + server (spec §3.2). Decisions where the spec is silent:
 * - Config is read on every call, so a changed threshold, cooldown or trial count applies at once:
 *   a closed breaker whose failures already reach a lowered threshold opens on its next call.
 * - open → half-open happens on the first call after cb_cooldown_seconds (state() reports it as
 *   half-open as soon as the time is up); half-open admits at most cb_half_open_max_calls trial
 *   calls, in flight or done; further calls are refused until the trials decide. All trials
 *   succeeding closes it; any trial failing reopens it with the cooldown restarted.
 * - A result arriving while the breaker is open (a call admitted before it opened) changes nothing.
 * - With cb_enabled false calls pass and results are ignored; the state kept so far stays.
 * - Only breakers with something to remember are kept (a closed breaker with no failure has no
 *   entry), at most MAX_BREAKERS, least recently changed dropped first (it is then closed again).
 */
import type { PreventionConfig } from '../config.ts';
import { CircuitBreakerOpenError } from '../errors.ts';
import type { BreakerState, CircuitBreakersApi, Clock, Verdict } from './types.ts';

export const MAX_BREAKERS = 10_000;

interface Breaker {
  state: BreakerState;
  /** Consecutive failures while closed; the count that opened it while open. */
  failures: number;
  openedAt: number;
  /** The cooldown last seen in the config, for state(), which has no config. */
  cooldownMs: number;
  trials: number;
  trialSuccesses: number;
  /** Opened by a failed trial call rather than by the failure count (for the message). */
  reopened: boolean;
}

const ALLOWED: Verdict = Object.freeze({ allowed: true, healthTag: null, warning: null });

export class CircuitBreakers implements CircuitBreakersApi {
  private readonly breakers = new Map<string, Breaker>();

  constructor(private readonly clock: Clock) {}

  before(
    agentName: string,
    serverName: string,
    sessionId: string,
    config: PreventionConfig,
  ): Verdict {
    if (!config.cb_enabled || this.breakers.size === 0) return ALLOWED;
    const key = keyOf(agentName, serverName);
    const b = this.breakers.get(key);
    if (b === undefined) return ALLOWED;
    const now = this.clock();
    b.cooldownMs = config.cb_cooldown_seconds * 1000;
    if (b.state === 'closed') {
      if (b.failures < config.cb_failure_threshold) return ALLOWED;
      this.open(key, b, now);
    }
    if (b.state === 'open') {
      const retryAt = b.openedAt + b.cooldownMs;
      if (now < retryAt)
        return openRefusal(
          agentName,
          serverName,
          sessionId,
          config,
          b.failures,
          b.reopened,
          retryAt,
        );
      b.state = 'half_open';
      b.trials = b.trialSuccesses = 0;
    }
    // Half-open: trial calls.
    if (b.trialSuccesses >= config.cb_half_open_max_calls) {
      this.breakers.delete(key);
      return ALLOWED;
    }
    if (b.trials < config.cb_half_open_max_calls) {
      b.trials++;
      return ALLOWED;
    }
    return halfOpenRefusal(agentName, serverName, sessionId, config, b.trials);
  }

  after(agentName: string, serverName: string, ok: boolean, config: PreventionConfig): void {
    if (!config.cb_enabled) return;
    const key = keyOf(agentName, serverName);
    const b = this.breakers.get(key);
    if (b === undefined) {
      if (ok) return;
      const fresh: Breaker = {
        state: 'closed',
        failures: 1,
        openedAt: 0,
        cooldownMs: config.cb_cooldown_seconds * 1000,
        trials: 0,
        trialSuccesses: 0,
        reopened: false,
      };
      this.remember(key, fresh);
      if (fresh.failures >= config.cb_failure_threshold) this.open(key, fresh, this.clock());
      return;
    }
    b.cooldownMs = config.cb_cooldown_seconds * 1000;
    if (b.state === 'open') return;
    if (b.state === 'closed') {
      if (ok) this.breakers.delete(key);
      else if (++b.failures >= config.cb_failure_threshold) this.open(key, b, this.clock());
      else this.remember(key, b);
      return;
    }
    if (!ok) {
      b.failures++;
      this.open(key, b, this.clock());
      b.reopened = true;
    } else if (++b.trialSuccesses >= config.cb_half_open_max_calls) this.breakers.delete(key);
  }

  state(agentName: string, serverName: string): BreakerState {
    const b = this.breakers.get(keyOf(agentName, serverName));
    if (b === undefined) return 'closed';
    if (b.state === 'open' && this.clock() >= b.openedAt + b.cooldownMs) return 'half_open';
    return b.state;
  }

  /** How many breakers are remembered (for tests of the bound). */
  get size(): number {
    return this.breakers.size;
  }

  private open(key: string, b: Breaker, now: number): void {
    b.state = 'open';
    b.reopened = false;
    b.openedAt = now;
    b.trials = b.trialSuccesses = 0;
    this.remember(key, b);
  }

  /** (Re)inserts at the young end of the map; drops the least recently changed beyond the bound. */
  private remember(key: string, b: Breaker): void {
    this.breakers.delete(key);
    this.breakers.set(key, b);
    if (this.breakers.size > MAX_BREAKERS) {
      const oldest = this.breakers.keys().next();
      if (oldest.done !== true) this.breakers.delete(oldest.value);
    }
  }
}

/** The refusal of an open breaker (also built by the shared breakers, so both read the same). */
export function openRefusal(
  agentName: string,
  serverName: string,
  sessionId: string,
  config: PreventionConfig,
  failures: number,
  reopened: boolean,
  retryAt: number,
): Verdict {
  const why = reopened ? 'a trial call failed' : `${failures} consecutive failures`;
  const message = `Circuit breaker open: calls from agent ${agentName} to server ${serverName} are blocked after ${why}; a trial call is allowed after ${new Date(retryAt).toISOString()}`;
  return {
    allowed: false,
    error: new CircuitBreakerOpenError(message, {
      guard: 'circuit_breaker',
      sessionId,
      agentName,
      serverName,
      limit: config.cb_failure_threshold,
      observed: failures,
      retryAt,
    }),
  };
}

/** The refusal of a half-open breaker whose trial slots are all taken. */
export function halfOpenRefusal(
  agentName: string,
  serverName: string,
  sessionId: string,
  config: PreventionConfig,
  trials: number,
): Verdict {
  const message = `Circuit breaker half-open: server ${serverName} is being tested with ${config.cb_half_open_max_calls} trial calls from agent ${agentName}; further calls are refused until they succeed`;
  return {
    allowed: false,
    error: new CircuitBreakerOpenError(message, {
      guard: 'circuit_breaker',
      sessionId,
      agentName,
      serverName,
      limit: config.cb_half_open_max_calls,
      observed: trials,
    }),
  };
}

// Agent and server names are free text; the NUL separator keeps `a/b`+`c` apart from `a`+`b/c`.
const keyOf = (agentName: string, serverName: string): string => `${agentName}\u0000${serverName}`;
