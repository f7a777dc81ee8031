/**
 * The SDK's entry point. Calls outside `session()` run in an implicit session of this instance
 * (agent `options.agentName`): one session id and guard state for the instance's lifetime and no
 * agent span, so their spans have no parent. Its limits (steps, cost, wall time) count over that
 * whole lifetime: agents that want per-run limits run inside `session()`.
 */
import { randomUUID } from 'node:crypto';
import { SessionGuard } from './engine.ts';
import type { ExportStats, GuardCall, Session, SessionOptions, SpyglassOptions } from './types.ts';
import { guardedCall } from './guarded-call.ts';
import { resolveOptions } from './options.ts';
import { Runtime } from './runtime.ts';
import { scopes, type Scope } from './scope.ts';
import { runAgentSpan, SessionHandle } from './session.ts';
import {
  judgeMcpResult,
  originals,
  type McpToolClient,
  type McpToolParams,
  type WrapMcpOptions,
} from './wrap-mcp.ts';
import { onBeforeExit } from './exit-flush.ts';

export class Spyglass {
  private readonly rt: Runtime;
  private implicit: Scope | null = null;
  private stopped = false;
  private readonly unregister: () => void;

  constructor(options: SpyglassOptions = {}) {
    this.rt = new Runtime(resolveOptions(options));
    this.unregister = onBeforeExit(this.rt.exporter);
  }

  /** Runs fn as one agent session: its own ids, guard state, config and agent span. */
  async session<T>(options: SessionOptions, fn: (session: Session) => Promise<T> | T): Promise<T> {
    const agentName = options?.agentName ?? this.rt.opts.agentName;
    if (typeof agentName !== 'string' || agentName === '')
      throw new TypeError('Spyglass: session agentName must be a non-empty string');
    if (
      options.sessionId !== undefined &&
      (typeof options.sessionId !== 'string' || options.sessionId === '')
    )
      throw new TypeError('Spyglass: session sessionId must be a non-empty string');
    if (typeof fn !== 'function') throw new TypeError('Spyglass: session needs a function');
    const sessionId = options.sessionId ?? randomUUID();
    await this.rt.configs.load(agentName);
    const scope: Scope = {
      sessionId,
      traceId: randomUUID(),
      agentName,
      spanId: randomUUID(),
      guard: new SessionGuard({ sessionId, agentName, clock: this.rt.opts.clock }),
    };
    return runAgentSpan(this.rt, scope, 'session', null, () =>
      fn(new SessionHandle(this.rt, scope)),
    );
  }

  /** Guards every `callTool` of this MCP client and records it as a `tool_call` span. */
  wrapMcp<C extends McpToolClient>(client: C, options: WrapMcpOptions): C {
    if (typeof client?.callTool !== 'function')
      throw new TypeError('Spyglass: wrapMcp needs a client with callTool');
    const serverName = options?.serverName;
    if (typeof serverName !== 'string' || serverName === '')
      throw new TypeError('Spyglass: wrapMcp serverName must be a non-empty string');
    const original = originals.get(client) ?? client.callTool;
    const bare = original.bind(client);
    const wrapped = (params: McpToolParams, ...rest: any[]): Promise<unknown> =>
      guardedCall(this.rt, this.scope(), {
        serverName,
        toolName: params.name,
        args: params.arguments ?? {},
        run: () => bare(params, ...rest),
        judge: judgeMcpResult,
      });
    originals.set(client, original);
    client.callTool = wrapped as C['callTool'];
    return client;
  }

  /** The same guards and span for any tool that is not MCP; a thrown error is a failure and is rethrown. */
  guard<T>(call: GuardCall, fn: () => Promise<T> | T): Promise<T> {
    if (typeof call?.serverName !== 'string' || call.serverName === '')
      throw new TypeError('Spyglass: guard serverName must be a non-empty string');
    if (typeof call.toolName !== 'string' || call.toolName === '')
      throw new TypeError('Spyglass: guard toolName must be a non-empty string');
    if (call.costUsd !== undefined && !(typeof call.costUsd === 'number' && call.costUsd >= 0))
      throw new TypeError('Spyglass: guard costUsd must be a number ≥ 0');
    return guardedCall(this.rt, this.scope(), {
      serverName: call.serverName,
      toolName: call.toolName,
      args: call.args ?? {},
      costUsd: call.costUsd,
      run: fn,
      judge: () => ({ outcome: { ok: true }, output: null }),
    });
  }

  /**
   * Resolves when the spans buffered so far were sent or one attempt to send them failed (see
   * SpanExporter.flush), or after flushTimeoutMs at the latest (unsent spans stay buffered).
   */
  async flush(): Promise<void> {
    const ms = this.rt.opts.flushTimeoutMs;
    await within(this.rt.exporter.flush(Date.now() + ms), ms);
  }

  /**
   * Flushes, then stops the timers; later spans are still buffered but only sent by flush(). Closes
   * the shared breakers' Redis connection the SDK opened (not a client passed in); later calls use
   * the local breakers. Takes flushTimeoutMs at most: past it the request in flight is cancelled
   * (its spans stay buffered) so the process can exit.
   */
  async shutdown(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.rt.stop();
      this.unregister();
    }
    const ms = this.rt.opts.flushTimeoutMs;
    if (
      !(await within(
        Promise.all([this.rt.exporter.flush(Date.now() + ms), this.rt.shared?.close()]),
        ms,
      ))
    ) {
      this.rt.exporter.abort();
      this.rt.opts.logger.warn(
        `Spyglass: shutdown gave up waiting for the backend after ${ms} ms (flushTimeoutMs); unsent spans stay buffered (stats())`,
        { url: this.rt.opts.url },
      );
    }
  }

  stats(): ExportStats {
    return this.rt.exporter.stats();
  }

  private scope(): Scope {
    const current = scopes.getStore();
    if (current) return current;
    if (!this.implicit) {
      const sessionId = randomUUID();
      const agentName = this.rt.opts.agentName;
      void this.rt.configs.load(agentName);
      this.implicit = {
        sessionId,
        traceId: randomUUID(),
        agentName,
        spanId: null,
        guard: new SessionGuard({ sessionId, agentName, clock: this.rt.opts.clock }),
      };
    }
    return this.implicit;
  }
}

/** Whether `work` settled within `ms` (it is not cancelled; the timer does not hold the process). */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
