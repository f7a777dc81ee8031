import { describe, expect, it } from 'vitest';
import { DEFAULT_PREVENTION, type PreventionConfig } from '../../sdk/src/config.ts';
import { BudgetExceededError, GraphLoopError, type PreventionError } from '../../sdk/src/errors.ts';
import {
  SessionGuard,
  type CallIdentity,
  type GraphLimits,
  type Verdict,
} from '../../sdk/src/guards/index.ts';

// docs/sdk.md#guards, budget and graph rows: max_steps, max cost, soft alert, wall time, node iterations, graph cost.
const BASE: PreventionConfig = { ...DEFAULT_PREVENTION, loop_enabled: false };
const NO_GRAPH: GraphLimits = { maxNodeIterations: 0, maxCostUsd: null };
const call = (toolName = 'echo', args: unknown = {}): CallIdentity => ({
  agentName: 'writer',
  serverName: 'everything',
  toolName,
  args,
});

function setup(start = 1_000_000) {
  let now = start;
  const guard = new SessionGuard({ sessionId: 's2', agentName: 'writer', clock: () => now });
  return { guard, advance: (ms: number) => (now += ms) };
}

function blocked(v: Verdict): PreventionError {
  if (v.allowed) throw new Error('expected a blocked call');
  return v.error;
}

describe('session budget guards', () => {
  it('max_steps: at the cap the next call is blocked and the session terminated', () => {
    const { guard } = setup();
    const cfg = { ...BASE, max_steps: 3 };
    for (let i = 0; i < 3; i++)
      expect(guard.beforeCall(call('echo', { i }), cfg).allowed).toBe(true);
    const err = blocked(guard.beforeCall(call('echo', { i: 3 }), cfg));
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect(err.details).toMatchObject({
      guard: 'max_steps',
      limit: 3,
      observed: 3,
      toolName: 'echo',
      serverName: 'everything',
    });
    expect(err.message).toBe(
      'Step limit reached: 3 tool calls made, max_steps is 3; session terminated',
    );
    expect(guard.steps).toBe(3);
    expect(guard.tag).toBe('budget_exceeded');
    // Even with the limit lifted, a terminated session stays terminated.
    expect(blocked(guard.beforeCall(call(), BASE))).toBe(err);
  });

  it('max_cost: LLM + tool cost reaching the limit terminates the session; the next call is blocked', () => {
    const { guard } = setup();
    const cfg = { ...BASE, max_cost_usd: 1, budget_soft_alert: null };
    expect(guard.beforeCall(call(), cfg).allowed).toBe(true);
    expect(guard.afterCall(call(), { ok: true }, 0.4, cfg)).toBeNull();
    expect(guard.addLlmCost(0.6, cfg, NO_GRAPH)).toBe('budget_exceeded');
    expect(guard.costUsd).toBeCloseTo(1);
    expect(guard.llmCostUsd).toBeCloseTo(0.6);
    const err = guard.terminated;
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect(err?.details).toMatchObject({ guard: 'max_cost', limit: 1 });
    expect(err?.message).toBe(
      'Budget exceeded: the session has cost $1, reaching max_cost_usd $1; session terminated',
    );
    expect(blocked(guard.beforeCall(call(), cfg))).toBe(err);
    expect(guard.tag).toBe('budget_exceeded');
  });

  it('max_cost: a tool call whose own cost reaches the limit tags its span budget_exceeded', () => {
    const { guard } = setup();
    const cfg = { ...BASE, max_cost_usd: 0.05 };
    guard.beforeCall(call('create_issue'), cfg);
    expect(guard.afterCall(call('create_issue'), { ok: true }, 0.05, cfg)).toBe('budget_exceeded');
    expect(guard.terminated?.details).toMatchObject({
      guard: 'max_cost',
      toolName: 'create_issue',
    });
  });

  it('soft alert: crossing the threshold tags budget_warning once and execution continues', () => {
    const { guard } = setup();
    const cfg = { ...BASE, max_cost_usd: 10, budget_soft_alert: 0.8 };
    const tags = [3, 3, 2.5, 1].map((usd) => {
      expect(guard.beforeCall(call(), cfg).allowed).toBe(true);
      return guard.afterCall(call(), { ok: true }, usd, cfg);
    });
    expect(tags).toEqual([null, null, 'budget_warning', null]);
    expect(guard.terminated).toBeNull();
    expect(guard.tag).toBe('budget_warning');
    // An amount (≥ 1) is a threshold in USD.
    const other = setup().guard;
    const amount = { ...BASE, max_cost_usd: 10, budget_soft_alert: 2 };
    expect(other.addLlmCost(1.5, amount, NO_GRAPH)).toBeNull();
    expect(other.addLlmCost(0.5, amount, NO_GRAPH)).toBe('budget_warning');
  });

  it('soft alert: a single cost crossing both thresholds earns budget_exceeded only', () => {
    const { guard } = setup();
    const cfg = { ...BASE, max_cost_usd: 1, budget_soft_alert: 0.5 };
    expect(guard.addLlmCost(2, cfg, NO_GRAPH)).toBe('budget_exceeded');
    expect(guard.tag).toBe('budget_exceeded');
  });

  it('wall time: once elapsed time exceeds the limit the next call is blocked with budget_exceeded', () => {
    const { guard, advance } = setup();
    const cfg = { ...BASE, max_wall_time_s: 60 };
    advance(60_000);
    expect(guard.beforeCall(call(), cfg).allowed).toBe(true);
    advance(1);
    const err = blocked(guard.beforeCall(call(), cfg));
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect(err.details).toMatchObject({ guard: 'max_wall_time', limit: 60, observed: 60 });
    expect(err.message).toBe(
      'Wall time exceeded: the session has run 60 s, above max_wall_time_s 60; session terminated',
    );
    expect(guard.tag).toBe('budget_exceeded');
  });

  it('config changes between calls apply at once: lowered step, cost and wall time limits', () => {
    const steps = setup().guard;
    for (let i = 0; i < 4; i++) steps.beforeCall(call('echo', { i }), BASE);
    expect(blocked(steps.beforeCall(call(), { ...BASE, max_steps: 2 })).details).toMatchObject({
      guard: 'max_steps',
      observed: 4,
    });

    const cost = setup().guard;
    cost.afterCall(call(), { ok: true }, 3, BASE);
    expect(blocked(cost.beforeCall(call(), { ...BASE, max_cost_usd: 2 })).details.guard).toBe(
      'max_cost',
    );

    const wall = setup();
    wall.advance(120_000);
    expect(wall.guard.beforeCall(call(), BASE).allowed).toBe(true);
    expect(
      blocked(wall.guard.beforeCall(call(), { ...BASE, max_wall_time_s: 100 })).details.guard,
    ).toBe('max_wall_time');
  });

  it('noteTag: a breaker refusal reported by the runtime counts toward the session tag by severity', () => {
    const { guard } = setup();
    guard.addLlmCost(9, { ...BASE, max_cost_usd: 10 }, NO_GRAPH);
    expect(guard.tag).toBe('budget_warning');
    guard.noteTag('circuit_breaker_open');
    expect(guard.tag).toBe('circuit_breaker_open');
    guard.noteTag('budget_warning');
    expect(guard.tag).toBe('circuit_breaker_open');
  });
});

describe('graph guards', () => {
  it('node iteration limit: the execution beyond maxNodeIterations raises GraphLoopError tagged loop_detected', () => {
    const { guard } = setup();
    const graph = { maxNodeIterations: 10, maxCostUsd: null };
    for (let i = 0; i < 10; i++) expect(guard.beforeNode('plan', graph).allowed).toBe(true);
    expect(guard.beforeNode('act', graph).allowed).toBe(true);
    const err = blocked(guard.beforeNode('plan', graph));
    expect(err).toBeInstanceOf(GraphLoopError);
    expect(err.healthTag).toBe('loop_detected');
    expect(err.details).toMatchObject({ guard: 'graph_node_iterations', limit: 10, observed: 11 });
    expect(err.message).toBe(
      'Graph loop: node plan would run 11 times in this session, above maxNodeIterations 10; session terminated',
    );
    expect(guard.tag).toBe('loop_detected');
    expect(blocked(guard.beforeCall(call(), BASE))).toBe(err);
  });

  it('node iteration limit 0 disables it', () => {
    const { guard } = setup();
    for (let i = 0; i < 50; i++) expect(guard.beforeNode('plan', NO_GRAPH).allowed).toBe(true);
  });

  it('graph cost limit: LLM cost above it sets a flag and the next node raises BudgetExceededError', () => {
    const { guard } = setup();
    const graph = { maxNodeIterations: 10, maxCostUsd: 0.5 };
    expect(guard.beforeNode('plan', graph).allowed).toBe(true);
    expect(guard.addLlmCost(0.5, BASE, graph)).toBeNull();
    expect(guard.beforeNode('act', graph).allowed).toBe(true);
    // Tool costs do not count toward the graph limit.
    guard.afterCall(call(), { ok: true }, 5, BASE);
    expect(guard.beforeNode('act', graph).allowed).toBe(true);
    expect(guard.addLlmCost(0.01, BASE, graph)).toBeNull();
    expect(guard.terminated).toBeNull();
    const err = blocked(guard.beforeNode('act', graph));
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect(err.details).toMatchObject({ guard: 'graph_cost', limit: 0.5 });
    expect(err.details.observed).toBeCloseTo(0.51);
    expect(guard.tag).toBe('budget_exceeded');
  });
});
