import type { ProbeOutcome } from '../health/mcp-adapter.ts';
import type { HttpExposure, Observation } from './types.ts';

/** The Observation of one probe with inventory (prompts, resources, capabilities). */
export function toObservation(outcome: ProbeOutcome, http: HttpExposure | null): Observation {
  if (!outcome.ok) {
    return {
      reachable: false,
      error: outcome.error,
      serverInfo: outcome.serverInfo,
      protocolVersion: outcome.protocolVersion,
      instructions: null,
      capabilities: null,
      tools: [],
      prompts: null,
      resources: null,
      http,
    };
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
