import { SpyglassError, type ValidationIssue } from '../errors.ts';
import type { Span } from '../model/span.ts';
import { parseUtc } from '../normalize/native.ts';
import type { Db } from '../store/db.ts';
import { listSpans, type SpanFilter } from '../store/spans-repo.ts';

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

/** Spans newest first with keyset paging (decisions §3). */
export async function querySpans(db: Db, q: SpanQuery): Promise<SpanPage> {
  const issues: ValidationIssue[] = [];
  const limit = parseLimit(q.limit, 100, 1000, issues);
  const since = parseTime('since', q.since, issues);
  const until = parseTime('until', q.until, issues);
  const before = q.cursor === undefined ? undefined : decodeCursor(q.cursor, issues);
  if (issues.length > 0) throw new SpyglassError('validation', 'invalid query', { issues });

  const filter: SpanFilter = {
    projectId: q.projectId,
    serverName: q.server_name,
    toolName: q.tool_name,
    sessionId: q.session_id,
    traceId: q.trace_id,
    agentName: q.agent_name,
    status: q.status,
    spanType: q.span_type,
    since,
    until,
    before,
    limit: limit + 1,
  };
  const rows = await listSpans(db, filter);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { spans: page, nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
}

export function parseLimit(raw: string | number | undefined, fallback: number, max: number, issues: ValidationIssue[]): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    issues.push({ loc: ['query', 'limit'], msg: `Input should be an integer from 1 to ${max}`, type: 'int_range' });
    return fallback;
  }
  return n;
}

export function parseTime(name: string, raw: string | undefined, issues: ValidationIssue[]): Date | undefined {
  if (raw === undefined || raw === '') return undefined;
  const ms = parseUtc(raw);
  if (Number.isNaN(ms)) {
    issues.push({ loc: ['query', name], msg: 'Input should be an ISO 8601 datetime', type: 'datetime_parsing' });
    return undefined;
  }
  return new Date(ms);
}

export function encodeCursor(s: Span): string {
  return Buffer.from(`${s.startedAt.toISOString()}|${s.spanId}`).toString('base64url');
}

function decodeCursor(raw: string, issues: ValidationIssue[]): { startedAt: Date; spanId: string } | undefined {
  const text = Buffer.from(raw, 'base64url').toString('utf8');
  const sep = text.indexOf('|');
  const ms = sep > 0 ? Date.parse(text.slice(0, sep)) : Number.NaN;
  if (Number.isNaN(ms)) {
    issues.push({ loc: ['query', 'cursor'], msg: 'Invalid cursor', type: 'value_error' });
    return undefined;
  }
  return { startedAt: new Date(ms), spanId: text.slice(sep + 1) };
}
