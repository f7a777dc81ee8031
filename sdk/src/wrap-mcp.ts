/**
 * Guards an MCP client's `callTool`. Typed structurally so the SDK loads no MCP code of its own:
 * anything with `callTool({ name, arguments }, ...)` works, including `Client` of
 * @modelcontextprotocol/sdk. The same client object is returned with `callTool` replaced.
 */
import { safeJson } from './span.ts';
import type { CallOutcome } from './guards/types.ts';

export interface McpToolParams {
  name: string;
  arguments?: Record<string, unknown> | undefined;
}

export interface McpToolClient {
  callTool(params: McpToolParams, ...rest: any[]): Promise<unknown>;
}

export interface WrapMcpOptions {
  /** The tool server's name on spans and for its circuit breaker. */
  serverName: string;
}

/** An MCP result with `isError` is a failure (its text content is the error), still returned to the agent. */
export function judgeMcpResult(result: unknown): { outcome: CallOutcome; output: string | null } {
  const r = result as { isError?: unknown; content?: unknown } | null;
  if (r !== null && typeof r === 'object' && r.isError === true) {
    const parts = Array.isArray(r.content)
      ? (r.content as { type?: unknown; text?: unknown }[])
      : [];
    const text = parts
      .filter((c) => c?.type === 'text' && typeof c.text === 'string')
      .map((c) => c.text as string)
      .join('\n');
    return {
      outcome: { ok: false, error: text || 'tool returned isError' },
      output: safeJson(result),
    };
  }
  return { outcome: { ok: true }, output: safeJson(result) };
}

/** The unwrapped callTool of each client wrapped so far, so wrapping twice does not guard twice. */
export const originals = new WeakMap<object, McpToolClient['callTool']>();
