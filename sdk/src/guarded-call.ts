/**
 * One guarded tool call, MCP or not: session guards, breaker, the call, then the outcome fed back
 * and a `tool_call` span recorded. A refused call records a `prevented` span and throws; nothing
 * the SDK itself does (guards, spans, export) can make the agent's call fail.
 */
import { toolCostUsd } from './engine.ts';
import type { CallIdentity, CallOutcome, Verdict } from './guards/types.ts';
import type { Runtime } from './runtime.ts';
import type { Scope } from './scope.ts';
import { warnCost } from './warn-cost.ts';
import { argsObject, type SpanStatus } from './span.ts';
import { worseTag, type HealthTag } from './tags.ts';

export interface CallSpec<T> {
  serverName: string;
  toolName: string;
  args: unknown;
  costUsd?: number | undefined;
  run: () => Promise<T> | T;
  /** How a returned value counts (an MCP `isError` result is a failure that is still returned). */
  judge: (result: T) => { outcome: CallOutcome; output: string | null };
}

/** MCP's RequestTimeout code, or a fetch/AbortSignal timeout. */
function isTimeout(err: unknown): boolean {
  const e = err as { code?: unknown; name?: unknown } | null;
  return e !== null && typeof e === 'object' && (e.code === -32001 || e.name === 'TimeoutError');
}

const FAIL_OPEN: Verdict = Object.freeze({ allowed: true, healthTag: null, warning: null });

/** A guard that breaks (a bug, odd arguments) lets the call through: the SDK must not stop the agent. */
function ask(rt: Runtime, check: () => Verdict): Verdict {
  try {
    return check();
  } catch (err) {
    rt.opts.logger.warn('Spyglass: a guard failed before the call; the call proceeds unguarded', {
      error: (err as Error).message,
    });
    return FAIL_OPEN;
  }
}

export async function guardedCall<T>(rt: Runtime, scope: Scope, spec: CallSpec<T>): Promise<T> {
  const config = rt.config(scope.agentName);
  const call: CallIdentity = {
    agentName: scope.agentName,
    serverName: spec.serverName,
    toolName: spec.toolName,
    args: spec.args,
  };
  const inputArgs = argsObject(spec.args);
  const refuse = (verdict: Verdict & { allowed: false }): never => {
    const now = rt.opts.clock();
    scope.guard.noteTag(verdict.error.healthTag);
    rt.record(scope, {
      spanType: 'tool_call',
      serverName: spec.serverName,
      toolName: spec.toolName,
      startedAt: now,
      endedAt: now,
      status: 'prevented',
      error: verdict.error.message,
      healthTag: verdict.error.healthTag,
      extra: { input_args: inputArgs },
    });
    throw verdict.error;
  };
  const verdict = ask(rt, () => scope.guard.beforeCall(call, config));
  if (!verdict.allowed) return refuse(verdict);
  // The breaker is asked last: a half-open trial slot is only taken by a call that really runs.
  // Shared breakers make this step async; without them it stays synchronous. Redis not answering
  // (null) means this process's own breaker decides, and is then also fed the result.
  const shared =
    rt.shared !== null && config.cb_enabled
      ? await rt.shared.before(scope.agentName, spec.serverName, scope.sessionId, config)
      : null;
  const breaker =
    shared ??
    ask(rt, () => rt.breakers.before(scope.agentName, spec.serverName, scope.sessionId, config));
  if (!breaker.allowed) return refuse(breaker);
  if (verdict.warning !== null)
    rt.opts.logger.warn(verdict.warning, {
      sessionId: scope.sessionId,
      agentName: scope.agentName,
      serverName: spec.serverName,
      toolName: spec.toolName,
    });

  const startedAt = rt.opts.clock();
  let result: T | undefined;
  let outcome: CallOutcome;
  let output: string | null = null;
  let status: SpanStatus;
  let thrown: { err: unknown } | null = null;
  try {
    result = await spec.run();
    ({ outcome, output } = spec.judge(result));
    status = outcome.ok ? 'success' : 'error';
  } catch (err) {
    thrown = { err };
    outcome = { ok: false, error: err instanceof Error ? err.message : String(err) };
    status = isTimeout(err) ? 'timeout' : 'error';
  }
  const endedAt = rt.opts.clock();
  let tag: HealthTag | null = verdict.healthTag;
  if (
    shared === null ||
    !(await rt.shared!.after(scope.agentName, spec.serverName, outcome.ok, config))
  )
    rt.breakers.after(scope.agentName, spec.serverName, outcome.ok, config);
  try {
    const cost = spec.costUsd ?? toolCostUsd(spec.serverName, spec.toolName, rt.opts.pricing.tools);
    const costTag = scope.guard.afterCall(call, outcome, cost, config);
    warnCost(rt, scope, costTag);
    tag = worseTag(tag, costTag);
  } catch (err) {
    rt.opts.logger.warn('Spyglass: a guard failed after the call; the call is unaffected', {
      error: (err as Error).message,
    });
  }
  rt.record(scope, {
    spanType: 'tool_call',
    serverName: spec.serverName,
    toolName: spec.toolName,
    startedAt,
    endedAt,
    status,
    error: outcome.ok ? null : (outcome.error ?? null),
    healthTag: tag,
    extra: { input_args: inputArgs, output_result: output },
  });
  if (thrown) throw thrown.err;
  return result as T;
}
