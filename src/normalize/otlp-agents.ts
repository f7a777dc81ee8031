import type { Attrs, DecodedSpan } from '../model/otlp.ts';
import { ALIASES } from './otlp-aliases.ts';
import { first, text } from './otlp-values.ts';

/** Parent links followed at most this far (a cycle or a runaway chain ends there). */
const MAX_DEPTH = 64;

/**
 * The agent and session of each span of one export. A span names its agent (gen_ai.agent.name, …)
 * and session (session.id, …); one that does not (an LLM call or tool call inside `invoke_agent`)
 * takes them from its nearest ancestor in the same export that does, so costs, lineage and session
 * trees are the agent's and not the service's, and a trace is not split into two sessions. Without
 * either, the caller falls back to the resource's service.name and to no session.
 */
export class ExportAgents {
  private readonly agents = new Map<string, string>();
  private readonly sessions = new Map<string, string>();
  private readonly parents = new Map<string, string>();

  add(projectId: string, s: DecodedSpan): void {
    const key = `${projectId}\u0000${s.spanId}`;
    if (s.parentSpanId) this.parents.set(key, s.parentSpanId);
    if (s.problem !== undefined) return;
    const agent = namedAgent(s.attributes);
    if (agent !== undefined) this.agents.set(key, agent);
    const session = first(s.attributes, ALIASES.sessionId, text);
    if (session !== null) this.sessions.set(key, session);
  }

  agentOf(projectId: string, s: DecodedSpan): string | undefined {
    return this.inherited(this.agents, projectId, s);
  }

  sessionOf(projectId: string, s: DecodedSpan): string | undefined {
    return this.inherited(this.sessions, projectId, s);
  }

  private inherited(
    named: Map<string, string>,
    projectId: string,
    s: DecodedSpan,
  ): string | undefined {
    let key = `${projectId}\u0000${s.spanId}`;
    for (let depth = 0; depth < MAX_DEPTH; depth++) {
      const value = named.get(key);
      if (value !== undefined) return value;
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
