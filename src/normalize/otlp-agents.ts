import type { Attrs, DecodedSpan } from '../receivers/otlp-types.ts';
import { ALIASES } from './otlp-aliases.ts';
import { first, text } from './otlp-values.ts';

/** Parent links followed at most this far (a cycle or a runaway chain ends there). */
const MAX_DEPTH = 64;

/**
 * The agent of each span of one export. A span names its agent (gen_ai.agent.name, …); one that
 * does not (an LLM call or tool call inside `invoke_agent`) belongs to its nearest ancestor in the
 * same export that does, so costs, lineage and sessions are the agent's and not the service's.
 * Without either, the resource's service.name (the caller's fallback).
 */
export class ExportAgents {
  private readonly named = new Map<string, string>();
  private readonly parents = new Map<string, string>();

  add(projectId: string, s: DecodedSpan): void {
    const key = `${projectId}\u0000${s.spanId}`;
    if (s.parentSpanId) this.parents.set(key, s.parentSpanId);
    const own = s.problem === undefined ? namedAgent(s.attributes) : undefined;
    if (own !== undefined) this.named.set(key, own);
  }

  of(projectId: string, s: DecodedSpan): string | undefined {
    let key = `${projectId}\u0000${s.spanId}`;
    for (let depth = 0; depth < MAX_DEPTH; depth++) {
      const agent = this.named.get(key);
      if (agent !== undefined) return agent;
      const parent = this.parents.get(key);
      if (parent === undefined) return undefined;
      key = `${projectId}\u0000${parent}`;
    }
    return undefined;
  }
}

/** The agent a span names itself, in the documented order. */
function namedAgent(a: Attrs): string | undefined {
  return first(a, ALIASES.agentName, text) ?? traceloopAgent(a);
}

/** OpenLLMetry's agent: an agent or workflow span's entity name, else the workflow's name. */
function traceloopAgent(a: Attrs): string | undefined {
  const kind = text(a['traceloop.span.kind']);
  if (kind !== undefined && (ALIASES.traceloopAgentKinds as readonly string[]).includes(kind)) {
    const entity = text(a['traceloop.entity.name']);
    if (entity !== undefined) return entity;
  }
  return first(a, ALIASES.workflowName, text) ?? undefined;
}
