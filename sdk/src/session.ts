/**
 * A session as the agent sees it (the public Session type): its ids and guard state, LLM calls,
 * handoffs to other agents and graph nodes. Each opens a scope and records its agent span when done.
 */
import { llmCostUsd } from './engine.ts';
import { PreventionError } from './errors.ts';
import type { Runtime } from './runtime.ts';
import { scopes, type Scope } from './scope.ts';
import { newId, type SpanStatus } from './span.ts';
import { warnCost } from './warn-cost.ts';
import type { HealthTag } from './tags.ts';
import type { LlmCall, Session } from './types.ts';

export class SessionHandle implements Session {
  constructor(
    private readonly rt: Runtime,
    readonly scope: Scope,
  ) {}

  get sessionId(): string {
    return this.scope.sessionId;
  }
  get traceId(): string {
    return this.scope.traceId;
  }
  get agentName(): string {
    return this.scope.agentName;
  }
  get spanId(): string {
    return this.scope.spanId ?? '';
  }
  get healthTag(): HealthTag | null {
    return this.scope.guard.tag;
  }
  get costUsd(): number {
    return this.scope.guard.costUsd;
  }
  get steps(): number {
    return this.scope.guard.steps;
  }

  recordLlm(call: LlmCall): number {
    const { rt, scope } = this;
    const input = call.inputTokens ?? 0;
    const output = call.outputTokens ?? 0;
    const { usd } = llmCostUsd(call.model, input, output, rt.opts.pricing.models);
    const tag = scope.guard.addLlmCost(usd, rt.config(scope.agentName), rt.opts.graph);
    const now = rt.opts.clock();
    rt.record(scope, {
      spanType: 'agent',
      serverName: scope.agentName,
      toolName: call.model ?? 'llm',
      startedAt: now,
      endedAt: now,
      status: 'success',
      healthTag: tag,
      extra: {
        llm_input: call.prompt ?? null,
        llm_output: call.completion ?? null,
        input_tokens: call.inputTokens ?? null,
        output_tokens: call.outputTokens ?? null,
        model_id: call.model ?? null,
      },
    });
    warnCost(rt, scope, tag);
    return usd;
  }

  async handoff<T>(targetAgent: string, fn: (child: Session) => Promise<T> | T): Promise<T> {
    if (typeof targetAgent !== 'string' || targetAgent === '')
      throw new TypeError('Spyglass: handoff needs a target agent name');
    const { rt, scope } = this;
    const handoffId = newId();
    const startedAt = rt.opts.clock();
    await rt.configs.load(targetAgent);
    const child: Scope = { ...scope, agentName: targetAgent, spanId: newId() };
    let status: SpanStatus = 'success';
    let error: string | null = null;
    try {
      return await runAgentSpan(rt, child, `handoff from ${scope.agentName}`, handoffId, () =>
        fn(new SessionHandle(rt, child)),
      );
    } catch (err) {
      ({ status, error } = failure(err));
      throw err;
    } finally {
      rt.record(scope, {
        spanId: handoffId,
        spanType: 'handoff',
        serverName: scope.agentName,
        toolName: `→ ${targetAgent}`,
        extra: { target_agent_name: targetAgent },
        startedAt,
        endedAt: rt.opts.clock(),
        status,
        error,
        healthTag: status === 'prevented' ? scope.guard.tag : null,
      });
    }
  }

  async node<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
    if (typeof name !== 'string' || name === '') throw new TypeError('Spyglass: node needs a name');
    const { rt, scope } = this;
    const verdict = scope.guard.beforeNode(name, rt.opts.graph);
    if (!verdict.allowed) {
      const now = rt.opts.clock();
      rt.record(scope, {
        spanType: 'agent',
        serverName: scope.agentName,
        toolName: name,
        startedAt: now,
        endedAt: now,
        status: 'prevented',
        error: verdict.error.message,
        healthTag: verdict.error.healthTag,
      });
      throw verdict.error;
    }
    const inner: Scope = { ...scope, spanId: newId() };
    return runAgentSpan(rt, inner, name, scope.spanId, fn);
  }
}

function failure(err: unknown): { status: SpanStatus; error: string } {
  return {
    status: err instanceof PreventionError ? 'prevented' : 'error',
    error: err instanceof Error ? err.message : String(err),
  };
}

/**
 * Runs fn in `scope` and records the scope's agent span when it ends: success, error when fn
 * throws, prevented when it throws a PreventionError (with the session's guard tag).
 */
export async function runAgentSpan<T>(
  rt: Runtime,
  scope: Scope,
  taskName: string,
  parentSpanId: string | null,
  fn: () => Promise<T> | T,
): Promise<T> {
  const startedAt = rt.opts.clock();
  let status: SpanStatus = 'success';
  let error: string | null = null;
  try {
    return await scopes.run(scope, fn);
  } catch (err) {
    ({ status, error } = failure(err));
    throw err;
  } finally {
    rt.record(scope, {
      spanId: scope.spanId ?? newId(),
      parentSpanId,
      spanType: 'agent',
      serverName: scope.agentName,
      toolName: taskName,
      startedAt,
      endedAt: rt.opts.clock(),
      status,
      error,
      healthTag: scope.guard.tag,
    });
  }
}
