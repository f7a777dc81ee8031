import { enforce } from '../auth/access.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import { SpyglassError, notFound, type ValidationIssue } from '../errors.ts';
import type { HealthTag } from '../model/health-tags.ts';
import type {
  AgentSessionStats,
  Lineage,
  Session,
  SessionTree,
  SessionTreeNode,
} from '../model/session.ts';
import { HEALTH_TAGS, type Span } from '../model/span.ts';
import { JsonScratch } from '../model/json-bytes.ts';
import { sessionListJsonBytes } from '../model/session-list-bytes.ts';
import { linkTree, sessionTreeJsonBytes } from '../model/session-tree-bytes.ts';
import type { Db } from '../store/db.ts';
import type { LineageCache } from '../store/lineage-cache.ts';
import { sumLineage } from '../store/lineage-repo.ts';
import {
  countSessionsByHealth,
  findSessionRow,
  countSessionRows,
  listSessionRows,
  listSessionRowsOrdered,
  listSessionSpans,
  listSessionSpanValues,
  type SessionRow,
  SESSION_ORDERS,
  sumSessionsByAgent,
} from '../store/sessions-repo.ts';
import { rowToSpan } from '../store/spans-repo.ts';
import { decodeCursor, encodeCursor } from '../traces/cursor.ts';
import { checkTime, parseEnumParam, windowStart } from '../traces/query-params.ts';
import { checkInt, type IntRange } from '../model/int-range.ts';
import { buildLineage } from './lineage.ts';

/** A read window: `since` if given, else `hours` (1-720, default 24) before `until` (default now). */
export interface Window {
  /** The project asked for; the caller's scope decides. */
  projectId?: string | null | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  hours?: number | undefined;
}

export interface SessionQuery extends Window {
  agentName?: string | undefined;
  /** One of HEALTH_TAGS; anything else is a 422 naming the allowed values. */
  healthTag?: string | undefined;
  /** Part of the session id or agent name, case-insensitive (at most 200 characters). */
  text?: string | undefined;
  /** Absent: most recent activity first (keyset-paged); else this column (offset-paged). */
  orderBy?: string | undefined;
  /** With orderBy: largest first (default true). */
  descending?: boolean | undefined;
  /** 1-1000, default 50. */
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface SessionPage {
  sessions: Session[];
  nextCursor: string | null;
}

/** The most spans a tree returns; larger sessions say `truncated`. */
export const MAX_TREE_SPANS = 10_000;

/**
 * Sessions, their span trees and the lineage graph (docs/api.md#rest), for every adapter: any role
 * reads, a project-bound caller only its project's.
 */
export { SESSION_ORDERS };

/** Sessions one page holds. */
export const SESSIONS_LIMIT: IntRange = { min: 1, max: 1000, default: 50 };

export class SessionsService {
  /** The tree's and the list's JSON writers' buffer, this instance's (model/json-bytes.ts). */
  private readonly scratch = new JsonScratch();

  constructor(
    private readonly db: Db,
    /** The lineage's closed hours summed once (PGlite only: compose/reads.ts createLineageCache). */
    private readonly lineageCache: LineageCache | null = null,
  ) {}

  /** Newest activity first, default window the last 24 h (`hours` changes it), or by `orderBy`. */
  async list(by: Principal, q: SessionQuery): Promise<SessionPage> {
    const { filter, limit, cursor, orderBy } = this.filterOf(by, q, true);
    if (orderBy !== undefined) {
      const offset = cursor?.offset ?? 0;
      const rows = await listSessionRowsOrdered(this.db, {
        ...filter,
        orderBy,
        descending: q.descending ?? true,
        offset,
        limit: limit + 1,
      });
      const more = rows.length > limit;
      return {
        sessions: rows.slice(0, limit).map(toSession),
        nextCursor: more ? offsetCursor(offset + limit) : null,
      };
    }
    const key = cursor?.key;
    const rows = await listSessionRows(this.db, {
      ...filter,
      before: key && { lastCallAt: key.time, micros: key.micros, sessionId: key.id },
      limit: limit + 1,
    });
    const sessions = rows.slice(0, limit).map(toSession);
    const last = sessions[sessions.length - 1];
    return { sessions, nextCursor: rows.length > limit && last ? sessionCursor(last) : null };
  }

  /**
   * list()'s page as its REST response (JSON.stringify of its sessions' toSessionJson, the same
   * bytes) and the next page's cursor.
   */
  async listJson(
    by: Principal,
    q: SessionQuery,
  ): Promise<{ json: Buffer; nextCursor: string | null }> {
    const page = await this.list(by, q);
    return { json: sessionListJsonBytes(page.sessions, this.scratch), nextCursor: page.nextCursor };
  }

  /** How many sessions `list` would page through (cursor and order ignored). */
  async count(by: Principal, q: SessionQuery): Promise<number> {
    return countSessionRows(this.db, this.filterOf(by, q, false).filter);
  }

  private filterOf(by: Principal, q: SessionQuery, paged: boolean) {
    enforce(by, 'read');
    const projectId = scopeProject(by, q.projectId);
    const issues: ValidationIssue[] = [];
    const limit = checkInt('limit', q.limit, SESSIONS_LIMIT, issues);
    const until = checkTime('until', q.until, issues);
    const since = windowStart(q, until ?? new Date(), issues);
    const cursor = paged && q.cursor ? parseCursor(q.cursor, q.orderBy, issues) : undefined;
    const healthTag = parseEnumParam('health_tag', q.healthTag, HEALTH_TAGS, issues);
    const orderBy = parseEnumParam('order_by', q.orderBy, SESSION_ORDERS, issues);
    if (q.text !== undefined && q.text.length > 200)
      issues.push({ loc: ['query', 'text'], msg: 'At most 200 characters', type: 'value_error' });
    if (issues.length > 0) throw new SpyglassError('validation', 'invalid query', { issues });
    const filter = {
      projectId,
      agentName: q.agentName,
      healthTag,
      since,
      until,
      text: q.text || undefined,
    };
    return { filter, limit, cursor, orderBy };
  }

  /** One session's rollup without its spans. */
  async get(by: Principal, sessionId: string, projectId?: string | null): Promise<Session> {
    return toSession(await this.find(by, sessionId, projectId));
  }

  /** One session and its span tree by parent_span_id; spans whose parent is absent become roots. */
  async tree(by: Principal, sessionId: string, projectId?: string | null): Promise<SessionTree> {
    const { row, spans } = await this.withSpans(by, sessionId, projectId, (p) =>
      listSessionSpans(this.db, p, sessionId, MAX_TREE_SPANS + 1),
    );
    return {
      session: toSession(row),
      spans: buildTree(spans.slice(0, MAX_TREE_SPANS).map(rowToSpan)),
      truncated: spans.length > MAX_TREE_SPANS,
    };
  }

  /**
   * tree()'s REST response (JSON.stringify(toSessionTreeJson(tree)), the same bytes) written from
   * the rows as read, with no span, node or JSON object in between: most of what the REST tree
   * allocated per request (docs/benchmarks.md, the session tree's tail).
   */
  async treeJson(by: Principal, sessionId: string, projectId?: string | null): Promise<Buffer> {
    const { row, spans } = await this.withSpans(by, sessionId, projectId, (p) =>
      listSessionSpanValues(this.db, p, sessionId, MAX_TREE_SPANS + 1),
    );
    const truncated = spans.rows.length > MAX_TREE_SPANS;
    if (truncated) spans.rows.length = MAX_TREE_SPANS;
    return sessionTreeJsonBytes(toSession(row), spans, truncated, this.scratch);
  }

  /**
   * A session's row and its spans as `spansOf` reads them, for a caller who may read it. Both
   * reads go at once (a round trip less before the answer); without a project, the spans' read
   * finds the session's project itself, as the row's read does (sessionSpansQuery).
   */
  private async withSpans<T>(
    by: Principal,
    sessionId: string,
    projectId: string | null | undefined,
    spansOf: (project: string | null) => Promise<T>,
  ): Promise<{ row: NonNullable<Awaited<ReturnType<typeof findSessionRow>>>; spans: T }> {
    enforce(by, 'read');
    const project = scopeProject(by, projectId);
    const [row, spans] = await Promise.all([
      findSessionRow(this.db, project, sessionId),
      spansOf(project),
    ]);
    if (!row) throw notFound(`no session ${sessionId}`);
    return { row, spans };
  }

  /** The agent/server graph of a window (default the last 24 h) from the hourly rollup. */
  async lineage(by: Principal, q: Window): Promise<Lineage> {
    enforce(by, 'read');
    const projectId = scopeProject(by, q.projectId);
    const issues: ValidationIssue[] = [];
    const until = checkTime('until', q.until, issues) ?? new Date();
    const since = windowStart(q, until, issues);
    if (issues.length > 0) throw new SpyglassError('validation', 'invalid query', { issues });
    return buildLineage(
      this.lineageCache
        ? await this.lineageCache.sum(projectId, since, until)
        : await sumLineage(this.db, projectId, since, until),
    );
  }

  /**
   * Sessions active in a window (default the last 24 h) summed per agent (or for one agent), most
   * sessions first: the dashboard's agent list and agent page.
   */
  async byAgent(by: Principal, q: Window & { agentName?: string }): Promise<AgentSessionStats[]> {
    enforce(by, 'read');
    const projectId = scopeProject(by, q.projectId);
    const issues: ValidationIssue[] = [];
    const until = checkTime('until', q.until, issues);
    const since = windowStart(q, until ?? new Date(), issues);
    if (issues.length > 0) throw new SpyglassError('validation', 'invalid query', { issues });
    const rows = await sumSessionsByAgent(this.db, {
      projectId,
      agentName: q.agentName,
      since,
      until,
    });
    return rows.map((r) => ({ ...r, estCostUsd: Math.round(r.estCostUsd * 1e6) / 1e6 }));
  }

  /** Sessions active in a window (default the last 24 h) per health tag, most first. */
  async countByHealth(
    by: Principal,
    q: Window,
  ): Promise<{ healthTag: HealthTag; sessions: number }[]> {
    enforce(by, 'read');
    const projectId = scopeProject(by, q.projectId);
    const issues: ValidationIssue[] = [];
    const until = checkTime('until', q.until, issues);
    const since = windowStart(q, until ?? new Date(), issues);
    if (issues.length > 0) throw new SpyglassError('validation', 'invalid query', { issues });
    // The rollup stores only tags the normaliser produced.
    return (await countSessionsByHealth(this.db, projectId, since, until)) as {
      healthTag: HealthTag;
      sessions: number;
    }[];
  }

  private async find(by: Principal, sessionId: string, projectId?: string | null) {
    enforce(by, 'read');
    const row = await findSessionRow(this.db, scopeProject(by, projectId), sessionId);
    if (!row) throw notFound(`no session ${sessionId}`);
    return row;
  }
}

/** Children in start order (the spans come sorted); a span whose parent is absent is a root. */
export function buildTree(spans: Span[]): SessionTreeNode[] {
  const { roots, children } = linkTree(
    spans.length,
    (i) => (spans[i] as Span).spanId,
    (i) => (spans[i] as Span).parentSpanId,
  );
  const nodes = new Array<SessionTreeNode | undefined>(spans.length);
  const node = (i: number) => (nodes[i] ??= { span: spans[i] as Span, children: [] });
  for (let i = 0; i < spans.length; i++)
    for (const c of children[i] ?? []) node(i).children.push(node(c));
  return roots.map(node);
}

/** The cursor of an ordered list: the offset of the next page. */
function offsetCursor(offset: number): string {
  return Buffer.from(`offset|${offset}`).toString('base64url');
}

/** A keyset cursor for the default order, an offset cursor for `orderBy`. */
function parseCursor(
  raw: string,
  orderBy: string | undefined,
  issues: ValidationIssue[],
): { key?: ReturnType<typeof decodeCursor>; offset?: number } | undefined {
  if (orderBy === undefined) return { key: decodeCursor(raw, issues) };
  // At most 999,999 rows deep: an offset is read and discarded row by row.
  const m = /^offset\|(\d{1,6})$/.exec(Buffer.from(raw, 'base64url').toString('utf8'));
  if (!m) {
    issues.push({ loc: ['query', 'cursor'], msg: 'Invalid cursor', type: 'value_error' });
    return undefined;
  }
  return { offset: Number(m[1]) };
}

export function sessionCursor(s: Session): string {
  return encodeCursor(s.lastCallAt, s.sessionId, s.lastCallMicros);
}

function toSession(r: SessionRow): Session {
  return {
    sessionId: r.sessionId,
    projectId: r.projectId,
    agentName: r.agentName,
    firstCallAt: r.firstCallAt,
    firstCallMicros: Number(r.firstCallUs ?? 0),
    lastCallAt: r.lastCallAt,
    lastCallMicros: Number(r.lastCallUs ?? 0),
    durationMs: Math.max(0, r.lastEndAt.getTime() - r.firstCallAt.getTime()),
    toolCalls: r.toolCalls,
    failedCalls: r.failedCalls,
    preventedCalls: r.preventedCalls,
    spanCount: r.spanCount,
    serversUsed: r.serversUsed,
    // The rollup stores only tags the normaliser produced.
    healthTag: r.healthTag as HealthTag,
    inputTokens: Number(r.inputTokens),
    outputTokens: Number(r.outputTokens),
    estCostUsd: Math.round(r.estCostUsd * 1e6) / 1e6,
  };
}
