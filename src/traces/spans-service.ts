import { enforce } from '../auth/access.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import { SpyglassError, notFound, type ValidationIssue } from '../errors.ts';
import { DEFAULT_PROJECT, SPAN_STATUSES, SPAN_TYPES, type Span } from '../model/span.ts';
import type { Db } from '../store/db.ts';
import { findSpan, listSpans } from '../store/spans-repo.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { checkTime, parseEnumParam, parseLimit } from './query-params.ts';

/** A span search in domain terms; adapters parse their own input into it. */
export interface SpanQuery {
  /** The project asked for; the caller's scope decides (a bound key gets its own). */
  projectId?: string | null | undefined;
  serverName?: string | undefined;
  toolName?: string | undefined;
  sessionId?: string | undefined;
  traceId?: string | undefined;
  agentName?: string | undefined;
  /** One of SPAN_STATUSES; anything else is a 422 naming the allowed values. */
  status?: string | undefined;
  /** One of SPAN_TYPES; likewise. */
  spanType?: string | undefined;
  /** An invalid Date is a 422 naming the field. */
  since?: Date | undefined;
  until?: Date | undefined;
  /** 1-1000, default 100. */
  limit?: number | undefined;
  /** An opaque cursor from a previous page. */
  cursor?: string | undefined;
}

export interface SpanPage {
  spans: Span[];
  nextCursor: string | null;
}

/**
 * Reading spans (docs/api.md#rest), for every adapter: any role reads, a project-bound caller
 * only its project's spans.
 */
export class SpansService {
  constructor(private readonly db: Db) {}

  /** Spans newest first with keyset paging. */
  async query(by: Principal, q: SpanQuery): Promise<SpanPage> {
    enforce(by, 'read');
    const projectId = scopeProject(by, q.projectId);
    const issues: ValidationIssue[] = [];
    const limit = parseLimit(q.limit, 100, 1000, issues);
    const since = checkTime('since', q.since, issues);
    const until = checkTime('until', q.until, issues);
    const cursor = q.cursor ? decodeCursor(q.cursor, issues) : undefined;
    const status = parseEnumParam('status', q.status, SPAN_STATUSES, issues);
    const spanType = parseEnumParam('span_type', q.spanType, SPAN_TYPES, issues);
    if (issues.length > 0) throw new SpyglassError('validation', 'invalid query', { issues });

    const rows = await listSpans(this.db, {
      projectId,
      serverName: q.serverName,
      toolName: q.toolName,
      sessionId: q.sessionId,
      traceId: q.traceId,
      agentName: q.agentName,
      status,
      spanType,
      since,
      until,
      before: cursor && { startedAt: cursor.time, micros: cursor.micros, spanId: cursor.id },
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { spans: page, nextCursor: rows.length > limit && last ? spanCursor(last) : null };
  }

  /** One span with its payloads; a project-bound caller finds only its project's spans. */
  async get(by: Principal, spanId: string, projectId?: string | null): Promise<Span> {
    enforce(by, 'read');
    const span = await findSpan(this.db, scopeProject(by, projectId) ?? DEFAULT_PROJECT, spanId);
    if (!span) throw notFound(`no span ${spanId}`);
    return span;
  }
}

export function spanCursor(s: Span): string {
  return encodeCursor(s.startedAt, s.spanId, s.startedAtMicros);
}
