import { scopeProject, type Principal } from '../auth/principal.ts';
import { SpyglassError, notFound, type ValidationIssue } from '../errors.ts';
import { DEFAULT_PROJECT, SPAN_STATUSES, SPAN_TYPES, type Span } from '../model/span.ts';
import type { Db } from '../store/db.ts';
import { findSpan, listSpans, type SpanFilter } from '../store/spans-repo.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { parseEnumParam, parseLimit, parseTime } from './query-params.ts';

export interface SpanQuery {
  projectId: string | null;
  server_name?: string | undefined;
  tool_name?: string | undefined;
  session_id?: string | undefined;
  trace_id?: string | undefined;
  agent_name?: string | undefined;
  status?: string | undefined;
  span_type?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  limit?: string | number | undefined;
  cursor?: string | undefined;
}

export interface SpanPage {
  spans: Span[];
  nextCursor: string | null;
}

/** Spans newest first with keyset paging (docs/api.md#rest). */
export async function querySpans(db: Db, q: SpanQuery): Promise<SpanPage> {
  const issues: ValidationIssue[] = [];
  const limit = parseLimit(q.limit, 100, 1000, issues);
  const since = parseTime('since', q.since, issues);
  const until = parseTime('until', q.until, issues);
  const cursor = q.cursor ? decodeCursor(q.cursor, issues) : undefined;
  const status = parseEnumParam('status', q.status, SPAN_STATUSES, issues);
  const spanType = parseEnumParam('span_type', q.span_type, SPAN_TYPES, issues);
  if (issues.length > 0) throw new SpyglassError('validation', 'invalid query', { issues });

  const filter: SpanFilter = {
    projectId: q.projectId,
    serverName: q.server_name,
    toolName: q.tool_name,
    sessionId: q.session_id,
    traceId: q.trace_id,
    agentName: q.agent_name,
    status,
    spanType,
    since,
    until,
    before: cursor && { startedAt: cursor.time, micros: cursor.micros, spanId: cursor.id },
    limit: limit + 1,
  };
  const rows = await listSpans(db, filter);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { spans: page, nextCursor: rows.length > limit && last ? spanCursor(last) : null };
}

export function spanCursor(s: Span): string {
  return encodeCursor(s.startedAt, s.spanId, s.startedAtMicros);
}

/** One span with its payloads; a project-bound caller finds only its project's spans. */
export async function getSpan(
  db: Db,
  by: Principal,
  spanId: string,
  projectId?: string | null,
): Promise<Span> {
  const span = await findSpan(db, scopeProject(by, projectId) ?? DEFAULT_PROJECT, spanId);
  if (!span) throw notFound(`no span ${spanId}`);
  return span;
}
