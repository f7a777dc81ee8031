import { enforce } from '../auth/access.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import { SpyglassError, notFound, type ValidationIssue } from '../errors.ts';
import {
  DEFAULT_PROJECT,
  SPAN_STATUSES,
  SPAN_TYPES,
  type MinuteCount,
  type Span,
} from '../model/span.ts';
import type { Db } from '../store/db.ts';
import { JsonScratch } from '../model/json-bytes.ts';
import { columnOf, spanListJsonBytes } from '../model/span-bytes.ts';
import {
  countSpansPerMinute,
  findSpan,
  listSpans,
  listSpanValues,
  type SpanFilter,
} from '../store/spans-repo.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { checkInt, type IntRange } from '../model/int-range.ts';
import { checkTime, parseEnumParam } from './query-params.ts';

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
  /** SPANS_LIMIT. */
  limit?: number | null | undefined;
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
  /** The spans list's JSON writers' buffer, this instance's (model/json-bytes.ts). */
  private readonly scratch = new JsonScratch();

  constructor(private readonly db: Db) {}

  /** Spans newest first with keyset paging. */
  async query(by: Principal, q: SpanQuery): Promise<SpanPage> {
    const { filter, limit } = this.filterOf(by, q);
    const rows = await listSpans(this.db, filter);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { spans: page, nextCursor: rows.length > limit && last ? spanCursor(last) : null };
  }

  /**
   * query()'s page as its REST response (JSON.stringify of its spans' toSpanJson, the same bytes),
   * written from the rows as read, with no span or JSON object in between (docs/benchmarks.md,
   * target 5), and the next page's cursor.
   */
  async queryJson(
    by: Principal,
    q: SpanQuery,
  ): Promise<{ json: Buffer; nextCursor: string | null }> {
    const { filter, limit } = this.filterOf(by, q);
    const spans = await listSpanValues(this.db, filter);
    const count = Math.min(limit, spans.rows.length);
    const last = spans.rows[count - 1];
    let nextCursor: string | null = null;
    if (spans.rows.length > limit && last) {
      const at = (name: string) => last[columnOf(spans.columns, name)];
      nextCursor = encodeCursor(
        at('started_at') as Date,
        at('span_id') as string,
        Number(at('started_us') ?? 0),
      );
    }
    return { json: spanListJsonBytes(spans, this.scratch, count), nextCursor };
  }

  /** The store's filter of a query (one more than the page, to tell a next page), and the page size. */
  private filterOf(by: Principal, q: SpanQuery): { filter: SpanFilter; limit: number } {
    enforce(by, 'read');
    const projectId = scopeProject(by, q.projectId);
    const issues: ValidationIssue[] = [];
    const limit = checkInt('limit', q.limit, SPANS_LIMIT, issues);
    const since = checkTime('since', q.since, issues);
    const until = checkTime('until', q.until, issues);
    const cursor = q.cursor ? decodeCursor(q.cursor, issues) : undefined;
    const status = parseEnumParam('status', q.status, SPAN_STATUSES, issues);
    const spanType = parseEnumParam('span_type', q.spanType, SPAN_TYPES, issues);
    if (issues.length > 0) throw new SpyglassError('validation', 'invalid query', { issues });
    const filter: SpanFilter = {
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
    };
    return { filter, limit };
  }

  /** One span with its payloads; a project-bound caller finds only its project's spans. */
  async get(by: Principal, spanId: string, projectId?: string | null): Promise<Span> {
    enforce(by, 'read');
    const span = await findSpan(this.db, scopeProject(by, projectId) ?? DEFAULT_PROJECT, spanId);
    if (!span) throw notFound(`no span ${spanId}`);
    return span;
  }

  /**
   * Spans and failures (error, timeout) per minute for the last `minutes` minutes (1-360, default
   * 60), oldest first, the current minute last and still counting; every minute present, 0 when
   * quiet.
   */
  async perMinute(
    by: Principal,
    q: { projectId?: string | null | undefined; minutes?: number | undefined; now?: Date },
  ): Promise<MinuteCount[]> {
    enforce(by, 'read');
    const projectId = scopeProject(by, q.projectId);
    const issues: ValidationIssue[] = [];
    const minutes = checkInt('minutes', q.minutes, PER_MINUTE_MINUTES, issues);
    if (issues.length > 0) throw new SpyglassError('validation', 'invalid query', { issues });
    const current = Math.floor((q.now ?? new Date()).getTime() / 60_000) * 60_000;
    const since = new Date(current - (minutes - 1) * 60_000);
    const rows = await countSpansPerMinute(this.db, projectId, since, new Date(current + 60_000));
    const byMinute = new Map(rows.map((r) => [r.minute.getTime(), r]));
    return Array.from({ length: minutes }, (_, i) => {
      const t = since.getTime() + i * 60_000;
      return byMinute.get(t) ?? { minute: new Date(t), spans: 0, errors: 0 };
    });
  }
}

/** The longest series spansPerMinute returns (6 hours): it counts raw spans, not a rollup. */
export const MAX_MINUTES = 360;
/** spansPerMinute's `minutes`: an hour by default. */
export const PER_MINUTE_MINUTES: IntRange = { min: 1, max: MAX_MINUTES, default: 60 };
/** Spans one page holds. */
export const SPANS_LIMIT: IntRange = { min: 1, max: 1000, default: 100 };

export function spanCursor(s: Span): string {
  return encodeCursor(s.startedAt, s.spanId, s.startedAtMicros);
}
