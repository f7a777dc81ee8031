/**
 * The per-session guards of spec §2.9: loops, max_steps, cost budget with its soft alert, wall time,
 * and the graph limits. Decisions where the spec is silent:
 * - Checks before a call run in this order: terminated, wall time, max_steps, max_cost, loops. A
 *   blocked call is not a step; an allowed call under loop action `warn` is.
 * - Limits compare with `≥` (max_steps, max_cost) so lowering a limit mid-session applies on the
 *   next call; wall time blocks once elapsed time is strictly above the limit. Wall time counts
 *   from construction.
 * - Once terminated, every later call and node is refused with the same error object.
 * - Costs arriving after termination (calls in flight) are still counted but earn no new tag.
 * - The soft alert fires once per session, only while below max_cost_usd; a single cost that
 *   crosses both earns budget_exceeded alone.
 * - A loop under `warn` tags every looping call loop_detected; its warning text comes once per run.
 *   Retry without progress under `warn` also tags the N-th (and any later) identical failure
 *   itself (afterCall), so the failing spans show the loop even if the agent then gives up.
 * - Loop fingerprints include the server name: the same tool name on two servers is two tools.
 * - The graph cost flag is set when LLM cost goes strictly above graph.maxCostUsd (spec: "above");
 *   node executions are counted per node name for the session's life.
 */
import { softAlertUsd, type PreventionConfig } from '../config.ts';
import {
  BudgetExceededError,
  GraphLoopError,
  LoopDetectedError,
  type PreventionDetails,
  type PreventionError,
} from '../errors.ts';
import { worseTag, type HealthTag } from '../tags.ts';
import { callFingerprint } from './fingerprint.ts';
import { LoopHistory } from './loop-history.ts';
import type {
  CallIdentity,
  CallOutcome,
  Clock,
  GraphLimits,
  SessionGuardApi,
  Verdict,
} from './types.ts';

export interface SessionGuardOptions {
  sessionId: string;
  agentName: string;
  clock: Clock;
}

const ALLOWED: Verdict = Object.freeze({ allowed: true, healthTag: null, warning: null });
const TERMINATED = 'session terminated';

type Where = Pick<PreventionDetails, 'serverName' | 'toolName'>;
const at = (call: CallIdentity): Where => ({
  serverName: call.serverName,
  toolName: call.toolName,
});
const usd = (n: number): string => `$${Math.round(n * 10_000) / 10_000}`;

export class SessionGuard implements SessionGuardApi {
  readonly sessionId: string;
  private readonly agentName: string;
  private readonly clock: Clock;
  private readonly startedAt: number;
  private readonly loops = new LoopHistory();
  private readonly nodeRuns = new Map<string, number>();
  private terminatedBy: PreventionError | null = null;
  private earned: HealthTag | null = null;
  private stepCount = 0;
  private totalCost = 0;
  private llmCost = 0;
  private softAlerted = false;
  private graphCostOver: number | null = null;

  constructor(options: SessionGuardOptions) {
    this.sessionId = options.sessionId;
    this.agentName = options.agentName;
    this.clock = options.clock;
    this.startedAt = options.clock();
  }

  get terminated(): PreventionError | null {
    return this.terminatedBy;
  }
  get tag(): HealthTag | null {
    return this.earned;
  }
  get steps(): number {
    return this.stepCount;
  }
  get costUsd(): number {
    return this.totalCost;
  }
  get llmCostUsd(): number {
    return this.llmCost;
  }

  noteTag(tag: HealthTag | null): void {
    this.earned = worseTag(this.earned, tag);
  }

  beforeCall(call: CallIdentity, config: PreventionConfig): Verdict {
    if (this.terminatedBy !== null) return { allowed: false, error: this.terminatedBy };
    if (config.max_wall_time_s !== null) {
      const elapsed = this.clock() - this.startedAt;
      if (elapsed > config.max_wall_time_s * 1000) {
        const s = Math.round(elapsed / 100) / 10;
        return this.stop(
          new BudgetExceededError(
            `Wall time exceeded: the session has run ${s} s, above max_wall_time_s ${config.max_wall_time_s}; ${TERMINATED}`,
            this.details('max_wall_time', at(call), config.max_wall_time_s, s),
          ),
        );
      }
    }
    if (config.max_steps !== null && this.stepCount >= config.max_steps) {
      return this.stop(
        new BudgetExceededError(
          `Step limit reached: ${this.stepCount} tool calls made, max_steps is ${config.max_steps}; ${TERMINATED}`,
          this.details('max_steps', at(call), config.max_steps, this.stepCount),
        ),
      );
    }
    if (config.max_cost_usd !== null && this.totalCost >= config.max_cost_usd) {
      return this.stop(this.costError(config.max_cost_usd, at(call)));
    }
    if (!config.loop_enabled) {
      this.loops.reset();
      this.stepCount++;
      return ALLOWED;
    }
    const toolKey = `${call.serverName}/${call.toolName}`;
    const hit = this.loops.observe(
      callFingerprint(toolKey, call.args),
      toolKey,
      call.toolName,
      config.loop_threshold,
    );
    if (hit === null) {
      this.stepCount++;
      return ALLOWED;
    }
    if (config.loop_action === 'terminate') {
      return this.stop(
        new LoopDetectedError(
          `${hit.message}; ${TERMINATED}`,
          this.details(hit.guard, at(call), hit.limit, hit.observed),
        ),
      );
    }
    this.stepCount++;
    this.noteTag('loop_detected');
    return {
      allowed: true,
      healthTag: 'loop_detected',
      warning: hit.first ? `${hit.message}; the call proceeds (loop_action warn)` : null,
    };
  }

  afterCall(
    call: CallIdentity,
    outcome: CallOutcome,
    costUsd: number,
    config: PreventionConfig,
  ): HealthTag | null {
    let tag: HealthTag | null = null;
    if (config.loop_enabled) {
      const failures = this.loops.recordOutcome(
        `${call.serverName}/${call.toolName}`,
        outcome.ok,
        outcome.error,
      );
      if (
        !outcome.ok &&
        failures >= config.loop_threshold &&
        config.loop_action === 'warn' &&
        this.terminatedBy === null
      )
        tag = 'loop_detected';
    }
    tag = worseTag(tag, this.addCost(costUsd, config, call));
    this.noteTag(tag);
    return tag;
  }

  addLlmCost(costUsd: number, config: PreventionConfig, graph: GraphLimits): HealthTag | null {
    if (Number.isFinite(costUsd) && costUsd > 0) this.llmCost += costUsd;
    if (graph.maxCostUsd !== null && this.llmCost > graph.maxCostUsd && this.graphCostOver === null)
      this.graphCostOver = graph.maxCostUsd;
    const tag = this.addCost(costUsd, config, null);
    this.noteTag(tag);
    return tag;
  }

  beforeNode(node: string, graph: GraphLimits): Verdict {
    if (this.terminatedBy !== null) return { allowed: false, error: this.terminatedBy };
    if (this.graphCostOver !== null) {
      const limit = this.graphCostOver;
      return this.stop(
        new BudgetExceededError(
          `Graph cost limit exceeded: LLM cost ${usd(this.llmCost)} is above the graph's maxCostUsd ${usd(limit)}; node ${node} not started, ${TERMINATED}`,
          this.details('graph_cost', {}, limit, this.llmCost),
        ),
      );
    }
    const runs = (this.nodeRuns.get(node) ?? 0) + 1;
    if (graph.maxNodeIterations > 0 && runs > graph.maxNodeIterations) {
      return this.stop(
        new GraphLoopError(
          `Graph loop: node ${node} would run ${runs} times in this session, above maxNodeIterations ${graph.maxNodeIterations}; ${TERMINATED}`,
          this.details('graph_node_iterations', {}, graph.maxNodeIterations, runs),
        ),
      );
    }
    this.nodeRuns.set(node, runs);
    return ALLOWED;
  }

  /** Adds a cost and answers the budget tag it earns: budget_exceeded (terminating) or budget_warning once. */
  private addCost(
    costUsd: number,
    config: PreventionConfig,
    call: CallIdentity | null,
  ): HealthTag | null {
    if (Number.isFinite(costUsd) && costUsd > 0) this.totalCost += costUsd;
    if (this.terminatedBy !== null) return null;
    if (config.max_cost_usd !== null && this.totalCost >= config.max_cost_usd) {
      this.softAlerted = true;
      this.stop(this.costError(config.max_cost_usd, call === null ? {} : at(call)));
      return 'budget_exceeded';
    }
    const soft = softAlertUsd(config);
    if (!this.softAlerted && soft !== null && this.totalCost >= soft) {
      this.softAlerted = true;
      return 'budget_warning';
    }
    return null;
  }

  private costError(limit: number, where: Where): BudgetExceededError {
    return new BudgetExceededError(
      `Budget exceeded: the session has cost ${usd(this.totalCost)}, reaching max_cost_usd ${usd(limit)}; ${TERMINATED}`,
      this.details('max_cost', where, limit, this.totalCost),
    );
  }

  private details(
    guard: PreventionDetails['guard'],
    where: Where,
    limit: number,
    observed: number,
  ): PreventionDetails {
    return {
      guard,
      sessionId: this.sessionId,
      agentName: this.agentName,
      ...where,
      limit,
      observed,
    };
  }

  private stop(error: PreventionError): Verdict {
    this.terminatedBy = error;
    this.noteTag(error.healthTag);
    return { allowed: false, error };
  }
}
