import type { HealthTag } from './tags.ts';

/** Which guard stopped a call (spec §2.9). */
export type GuardName =
  | 'loop_repetition'
  | 'loop_ping_pong'
  | 'loop_retry_without_progress'
  | 'max_steps'
  | 'max_cost'
  | 'max_wall_time'
  | 'circuit_breaker'
  | 'graph_node_iterations'
  | 'graph_cost';

export interface PreventionDetails {
  guard: GuardName;
  sessionId: string;
  agentName: string;
  serverName?: string;
  toolName?: string;
  /** The configured limit that was hit (calls, USD, seconds, iterations). */
  limit?: number;
  /** The value that hit it. */
  observed?: number;
  /** When an open breaker lets a trial call through again (ms since the epoch). */
  retryAt?: number;
}

/** A call (or graph node) the SDK refused to run. The agent catches it; nothing was executed. */
export class PreventionError extends Error {
  readonly healthTag: HealthTag;
  readonly details: PreventionDetails;

  constructor(message: string, healthTag: HealthTag, details: PreventionDetails) {
    super(message);
    this.name = new.target.name;
    this.healthTag = healthTag;
    this.details = details;
  }
}

/** Repetition, ping-pong or retry without progress with action `terminate`. */
export class LoopDetectedError extends PreventionError {
  constructor(message: string, details: PreventionDetails) {
    super(message, 'loop_detected', details);
  }
}

/** max_steps, max_cost_usd, max_wall_time_s, or the graph cost limit. */
export class BudgetExceededError extends PreventionError {
  constructor(message: string, details: PreventionDetails) {
    super(message, 'budget_exceeded', details);
  }
}

/** The breaker for this agent and server is open (or half-open with its trial calls taken). */
export class CircuitBreakerOpenError extends PreventionError {
  constructor(message: string, details: PreventionDetails) {
    super(message, 'circuit_breaker_open', details);
  }
}

/** A graph node ran more often in one session than the node iteration limit allows. */
export class GraphLoopError extends PreventionError {
  constructor(message: string, details: PreventionDetails) {
    super(message, 'loop_detected', details);
  }
}
