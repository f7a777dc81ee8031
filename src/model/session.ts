/** Sessions, their span trees and the agent/server lineage graph (docs/api.md#shapes). */
import type { HealthTag } from './health-tags.ts';
import { isoMicros, toSpanJson, type Span, type SpanJson } from './span.ts';

/** A session's rollup: every span that named the session id, summed. */
export interface Session {
  sessionId: string;
  projectId: string;
  agentName: string | null;
  firstCallAt: Date;
  /** Microseconds past firstCallAt's millisecond (0-999). */
  firstCallMicros: number;
  lastCallAt: Date;
  lastCallMicros: number;
  durationMs: number;
  toolCalls: number;
  failedCalls: number;
  /** Tool calls a guard blocked (loop, budget, open circuit breaker). */
  preventedCalls: number;
  spanCount: number;
  serversUsed: string[];
  healthTag: HealthTag;
  inputTokens: number;
  outputTokens: number;
  estCostUsd: number;
}

/** A span and the spans whose parent it is, in start order. */
export interface SessionTreeNode {
  span: Span;
  children: SessionTreeNode[];
}

/** One session with its spans as a tree; `truncated` when it has more than a tree shows. */
export interface SessionTree {
  session: Session;
  spans: SessionTreeNode[];
  truncated: boolean;
}

/** One agent's sessions in a window, summed from the session rollups (the dashboard's agent pages). */
export interface AgentSessionStats {
  agentName: string;
  sessions: number;
  toolCalls: number;
  failedCalls: number;
  preventedCalls: number;
  estCostUsd: number;
  lastCallAt: Date;
}

export interface LineageNode {
  /** `agent:<name>` or `server:<name>`. */
  id: string;
  type: 'agent' | 'server';
  name: string;
  calls: number;
  errors: number;
}
export interface LineageEdge {
  source: string;
  target: string;
  type: 'calls' | 'handoff';
  calls: number;
  errors: number;
  avgLatencyMs: number;
}
export interface Lineage {
  nodes: LineageNode[];
  edges: LineageEdge[];
}

/** The API's JSON of a session (REST and the CLI's --json). */
export function toSessionJson(s: Session) {
  return {
    session_id: s.sessionId,
    project_id: s.projectId,
    agent_name: s.agentName,
    first_call_at: isoMicros(s.firstCallAt, s.firstCallMicros),
    last_call_at: isoMicros(s.lastCallAt, s.lastCallMicros),
    duration_ms: s.durationMs,
    tool_calls: s.toolCalls,
    failed_calls: s.failedCalls,
    prevented_calls: s.preventedCalls,
    span_count: s.spanCount,
    servers_used: s.serversUsed,
    health_tag: s.healthTag,
    input_tokens: s.inputTokens,
    output_tokens: s.outputTokens,
    est_cost_usd: s.estCostUsd,
  };
}
export type SessionJson = ReturnType<typeof toSessionJson>;

export type TreeNodeJson = SpanJson & { children: TreeNodeJson[] };

/** The API's JSON of a session with its span tree. */
export function toSessionTreeJson(t: SessionTree) {
  return { session: toSessionJson(t.session), spans: toTreeJson(t.spans), truncated: t.truncated };
}
export type SessionTreeJson = ReturnType<typeof toSessionTreeJson>;

function toTreeJson(nodes: SessionTreeNode[]): TreeNodeJson[] {
  // `children` added to the span's object rather than both spread into a new one (the copy cost
  // more than making the span's JSON); it stays the last key.
  return nodes.map((n) => {
    const json = toSpanJson(n.span) as TreeNodeJson;
    json.children = toTreeJson(n.children);
    return json;
  });
}

/**
 * The API's JSON of the lineage graph. Object literals, not a rest and a spread per edge: those
 * made a quarter of a 24-hour lineage request's garbage (docs/benchmarks.md, target 5).
 */
export function toLineageJson(l: Lineage) {
  return {
    nodes: l.nodes.map((n) => ({
      id: n.id,
      type: n.type,
      name: n.name,
      calls: n.calls,
      errors: n.errors,
    })),
    edges: l.edges.map((e) => ({
      source: e.source,
      target: e.target,
      type: e.type,
      calls: e.calls,
      errors: e.errors,
      avg_latency_ms: e.avgLatencyMs,
    })),
  };
}
