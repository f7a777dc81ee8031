import type { GuardedFetch } from '../net/guarded-fetch.ts';
import { probeRequest } from '../health/checker.ts';
import { probeServer, type ProbeOutcome } from '../health/mcp-adapter.ts';
import type { CheckTarget } from '../health/types.ts';
import type { HttpExposure, Observation } from './types.ts';

/** The Observation of one probe with inventory (prompts, resources, capabilities). */
export function toObservation(outcome: ProbeOutcome, http: HttpExposure | null): Observation {
  if (!outcome.ok) {
    return { reachable: false, error: outcome.error, serverInfo: outcome.serverInfo, protocolVersion: outcome.protocolVersion, instructions: null, capabilities: null, tools: [], prompts: null, resources: null, http };
  }
  return {
    reachable: true,
    error: null,
    serverInfo: outcome.serverInfo,
    protocolVersion: outcome.protocolVersion,
    instructions: outcome.instructions,
    capabilities: outcome.capabilities,
    tools: outcome.tools,
    prompts: outcome.prompts,
    resources: outcome.resources,
    http,
  };
}

/** Probes a server with inventory, without storing anything (tests and `spyglass scan` against a config). */
export async function observe(target: CheckTarget, opts: { signal?: AbortSignal; guardedFetch?: GuardedFetch } = {}): Promise<Observation> {
  // No probe tool: a scan calls no tools.
  const outcome = await probeServer({ ...probeRequest(target), healthTool: undefined, healthToolArgs: undefined, signal: opts.signal, guardedFetch: opts.guardedFetch, inventory: true });
  return toObservation(outcome, null);
}
