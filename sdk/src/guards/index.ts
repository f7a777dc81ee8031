/**
 * The guard engine: pure, synchronous checks the SDK runtime runs around every wrapped call
 * (loops, steps, budget, wall time, graph limits per session; circuit breakers per agent + server).
 */
export { CircuitBreakers, halfOpenRefusal, MAX_BREAKERS, openRefusal } from './circuit-breakers.ts';
export { callFingerprint } from './fingerprint.ts';
export { SessionGuard, type SessionGuardOptions } from './session-guard.ts';
export type {
  BreakerState,
  CallIdentity,
  CallOutcome,
  CircuitBreakersApi,
  Clock,
  GraphLimits,
  SessionGuardApi,
  Verdict,
} from './types.ts';
