/**
 * The contract between the guard engine (sdk/src/guards/) and the SDK runtime (sdk/src/*.ts).
 * Guards are synchronous and allocation-light: they run before every wrapped call (budget < 50 µs).
 * Time comes from an injected clock so tests can move it.
 */
import type { PreventionConfig } from '../config.ts';
import type { PreventionError } from '../errors.ts';
import type { HealthTag } from '../tags.ts';

/** Milliseconds since the epoch. */
export type Clock = () => number;

export interface CallIdentity {
  agentName: string;
  serverName: string;
  toolName: string;
  args: unknown;
}

export interface CallOutcome {
  ok: boolean;
  /** The error text when not ok (an MCP `isError` result's text, a thrown error's message). */
  error?: string | null;
}

/**
 * A guard's answer before a call. Allowed calls may still carry a tag for their span (a loop under
 * action `warn` → loop_detected) and a warning to log; blocked calls carry the error to throw, whose
 * healthTag goes on the `prevented` span.
 */
export type Verdict =
  | { allowed: true; healthTag: HealthTag | null; warning: string | null }
  | { allowed: false; error: PreventionError };

export interface GraphLimits {
  /** Executions allowed per node per session; 0 disables (default 10). */
  maxNodeIterations: number;
  /** Running LLM cost allowed across the graph's session in USD; null = no limit. */
  maxCostUsd: number | null;
}

/**
 * Guard state of one session: loop history, steps, cost, wall time, soft alert, termination.
 * Every method takes the config in force for the calling agent at that moment, so a config change
 * applies on the next call.
 */
export interface SessionGuardApi {
  readonly sessionId: string;
  /** Set once a terminating guard fired; every later call and node is refused with it. */
  readonly terminated: PreventionError | null;
  /** The most severe guard tag this session earned so far (null: none). */
  readonly tag: HealthTag | null;
  /** Tool calls let through so far. */
  readonly steps: number;
  /** LLM + tool cost so far, USD. */
  readonly costUsd: number;
  /** LLM cost so far, USD (the graph cost limit counts only this). */
  readonly llmCostUsd: number;

  /** Loop, max_steps, max_cost (reached earlier), wall time; counts the step when allowed. */
  beforeCall(call: CallIdentity, config: PreventionConfig): Verdict;
  /**
   * Records the outcome (retry-without-progress history) and the tool's cost. Returns the tag for
   * this call's span: budget_warning when the soft alert threshold is crossed (once per session),
   * budget_exceeded when max_cost_usd is reached (the session is then terminated), loop_detected
   * when this failure completes a retry-without-progress pattern under `warn`.
   */
  afterCall(
    call: CallIdentity,
    outcome: CallOutcome,
    costUsd: number,
    config: PreventionConfig,
  ): HealthTag | null;
  /** Adds an LLM call's cost; same tag rules as afterCall's cost part; sets the graph cost flag. */
  addLlmCost(costUsd: number, config: PreventionConfig, graph: GraphLimits): HealthTag | null;
  /** Node iteration limit and the graph cost flag; counts the execution when allowed. */
  beforeNode(node: string, graph: GraphLimits): Verdict;
  /**
   * Adds a tag the session earned outside these guards to `tag`: the runtime reports
   * circuit_breaker_open here when the breaker refused one of the session's calls.
   */
  noteTag(tag: HealthTag | null): void;
}

export type BreakerState = 'closed' | 'open' | 'half_open';

/** Circuit breakers of one SDK instance, one per agent + server (spec §3.2). */
export interface CircuitBreakersApi {
  /**
   * Refuses calls while open; after the cooldown admits at most cb_half_open_max_calls trials.
   * Ask it last, right before the call runs, and report every admitted call to after() (errors and
   * timeouts included): an admitted trial that never reports keeps its slot taken.
   */
  before(
    agentName: string,
    serverName: string,
    sessionId: string,
    config: PreventionConfig,
  ): Verdict;
  /** Feeds a call's result: failures count toward opening, trial results close or reopen. */
  after(agentName: string, serverName: string, ok: boolean, config: PreventionConfig): void;
  state(agentName: string, serverName: string): BreakerState;
}
