import { SpyglassError, notFound, type ValidationIssue } from '../errors.ts';
import {
  HEALTH_TAGS,
  isoMicros,
  subMillisecondMicros,
  toSpanJson,
  type Span,
  type SpanJson,
} from '../model/span.ts';
import type { Db } from '../store/db.ts';
import {
  findSessionRow,
  listSessionRows,
  listSessionSpans,
  type SessionRow,
} from '../store/sessions-repo.ts';
import { rowToSpan } from '../store/spans-repo.ts';
import { decodeCursor, encodeCursor } from '../traces/cursor.ts';
import { parseEnumParam, parseLimit, parseTime, windowStart } from '../traces/query-params.ts';

export interface SessionJson {
  session_id: string;
  project_id: string;
  agent_name: string | null;
  first_call_at: string;
  last_call_at: string;
  duration_ms: number;
  tool_calls: number;
  failed_calls: number;
  /** Tool calls a guard blocked (loop, budget, open circuit breaker). */
  prevented_calls: number;
  span_count: number;
  servers_used: string[];
  health_tag: string;
  input_tokens: number;
  output_tokens: number;
  est_cost_usd: number;
}

export interface SessionQuery {
  projectId: string | null;
  agent_name?: string | undefined;
  health_tag?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  /** Look back this many hours (1-720) when `since` is not given; default 24. */
  hours?: string | number | undefined;
  limit?: string | number | undefined;
  cursor?: string | undefined;
}

export interface TreeNode {
  span: Span;
  children: TreeNode[];
}
export type TreeNodeJson = SpanJson & { children: TreeNodeJson[] };

/** The most spans a tree returns; larger sessions say `truncated`. */
export const MAX_TREE_SPANS = 10_000;

/** Sessions (docs/api.md#rest), newest activity first, default window the last 24 h (`hours` changes it). */
export async function listSessions(
  db: Db,
  q: SessionQuery,
): Promise<{ sessions: SessionJson[]; nextCursor: string | null }> {
  const issues: ValidationIssue[] = [];
  const limit = parseLimit(q.limit, 50, 1000, issues);
  const until = parseTime('until', q.until, issues);
  const since = windowStart(q, until ?? new Date(), 24, issues);
  const cursor = q.cursor ? decodeCursor(q.cursor, issues) : undefined;
  const healthTag = parseEnumParam('health_tag', q.health_tag, HEALTH_TAGS, issues);
  if (issues.length > 0) throw new SpyglassError('validation', 'invalid query', { issues });
  const rows = await listSessionRows(db, {
    projectId: q.projectId,
    agentName: q.agent_name,
    healthTag,
    since,
    until,
    before: cursor && { lastCallAt: cursor.time, micros: cursor.micros, sessionId: cursor.id },
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const sessions = page.map(toSessionJson);
  const last = sessions[sessions.length - 1];
  return { sessions, nextCursor: rows.length > limit && last ? sessionCursor(last) : null };
}

/** One session and its span tree by parent_span_id; spans whose parent is absent become roots. */
/** One session's rollup without its spans; a project-bound caller finds only its project's sessions. */
export async function getSession(
  db: Db,
  projectId: string | null,
  sessionId: string,
): Promise<SessionJson> {
  const row = await findSessionRow(db, projectId, sessionId);
  if (!row) throw notFound(`no session ${sessionId}`);
  return toSessionJson(row);
}

export async function getSessionTree(
  db: Db,
  projectId: string | null,
  sessionId: string,
): Promise<{ session: SessionJson; spans: TreeNode[]; truncated: boolean }> {
  const row = await findSessionRow(db, projectId, sessionId);
  if (!row) throw notFound(`no session ${sessionId}`);
  const spans = await listSessionSpans(db, row.projectId, sessionId, MAX_TREE_SPANS + 1);
  const truncated = spans.length > MAX_TREE_SPANS;
  return {
    session: toSessionJson(row),
    spans: buildTree(spans.slice(0, MAX_TREE_SPANS).map(rowToSpan)),
    truncated,
  };
}

/** Children in start order (the spans come sorted); a span whose parent is absent is a root. */
export function buildTree(spans: Span[]): TreeNode[] {
  const nodes = new Map<string, TreeNode>();
  for (const span of spans) nodes.set(span.spanId, { span, children: [] });
  const roots: TreeNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.span.parentSpanId ? nodes.get(node.span.parentSpanId) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

export function toTreeJson(nodes: TreeNode[]): TreeNodeJson[] {
  return nodes.map((n) => ({ ...toSpanJson(n.span), children: toTreeJson(n.children) }));
}

export function toSessionJson(r: SessionRow): SessionJson {
  return {
    session_id: r.sessionId,
    project_id: r.projectId,
    agent_name: r.agentName,
    first_call_at: isoMicros(r.firstCallAt, Number(r.firstCallUs ?? 0)),
    last_call_at: isoMicros(r.lastCallAt, Number(r.lastCallUs ?? 0)),
    duration_ms: Math.max(0, r.lastEndAt.getTime() - r.firstCallAt.getTime()),
    tool_calls: r.toolCalls,
    failed_calls: r.failedCalls,
    prevented_calls: r.preventedCalls,
    span_count: r.spanCount,
    servers_used: r.serversUsed,
    health_tag: r.healthTag,
    input_tokens: Number(r.inputTokens),
    output_tokens: Number(r.outputTokens),
    est_cost_usd: Math.round(r.estCostUsd * 1e6) / 1e6,
  };
}

export function sessionCursor(s: SessionJson): string {
  return encodeCursor(new Date(s.last_call_at), s.session_id, subMillisecondMicros(s.last_call_at));
}
