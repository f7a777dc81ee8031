import {
  and,
  asc,
  count,
  desc,
  eq,
  getTableColumns,
  gte,
  ilike,
  isNotNull,
  lte,
  or,
  sql,
  type SQL,
} from 'drizzle-orm';
import { isoMicros } from '../model/span.ts';
import { executePrepared, executePreparedValues, type Db } from './db.ts';
import { sessions, spans } from './schema.ts';
import { SPAN_MICROS, spanRowOf, type SpanColumns, type SpanRow } from './spans-repo.ts';

export type { SpanRow };

/** A session's rollup row, with its first and last call's microseconds below the millisecond. */
export type SessionRow = typeof sessions.$inferSelect & {
  firstCallUs?: number | string;
  lastCallUs?: number | string;
};

const SESSION_WITH_MICROS = {
  ...getTableColumns(sessions),
  firstCallUs: sql<number>`(extract(microseconds from ${sessions.firstCallAt})::int % 1000)`.as(
    'first_call_us',
  ),
  lastCallUs: sql<number>`(extract(microseconds from ${sessions.lastCallAt})::int % 1000)`.as(
    'last_call_us',
  ),
};

export interface SessionFilter {
  projectId: string | null;
  agentName?: string;
  healthTag?: string;
  since: Date;
  until?: Date;
  /** Part of the session id or agent name, case-insensitive. */
  text?: string;
  before?: { lastCallAt: Date; micros?: number; sessionId: string };
  limit: number;
}

/** Columns a session list can be ordered by (besides the default, most recent activity). */
export const SESSION_ORDERS = [
  'started',
  'duration',
  'calls',
  'failures',
  'cost',
  'tokens',
] as const;
export type SessionOrder = (typeof SESSION_ORDERS)[number];

const ORDER_SQL: Record<SessionOrder, SQL> = {
  started: sql`${sessions.firstCallAt}`,
  duration: sql`(${sessions.lastEndAt} - ${sessions.firstCallAt})`,
  calls: sql`${sessions.toolCalls}`,
  failures: sql`${sessions.failedCalls}`,
  cost: sql`${sessions.estCostUsd}`,
  tokens: sql`(${sessions.inputTokens} + ${sessions.outputTokens})`,
};

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
export const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function whereOf(f: Omit<SessionFilter, 'limit'>): SQL | undefined {
  const text = f.text ? `%${likeEscape(f.text)}%` : undefined;
  return and(
    f.projectId === null ? undefined : eq(sessions.projectId, f.projectId),
    f.agentName === undefined ? undefined : eq(sessions.agentName, f.agentName),
    f.healthTag === undefined ? undefined : eq(sessions.healthTag, f.healthTag),
    gte(sessions.lastCallAt, f.since),
    f.until === undefined ? undefined : lte(sessions.firstCallAt, f.until),
    text === undefined
      ? undefined
      : or(ilike(sessions.sessionId, text), ilike(sessions.agentName, text)),
  );
}

/** How many sessions match the filter (the list's "N of M"). */
export async function countSessionRows(
  db: Db,
  f: Omit<SessionFilter, 'limit' | 'before'>,
): Promise<number> {
  const [row] = await db.select({ n: count() }).from(sessions).where(whereOf(f));
  return Number(row?.n ?? 0);
}

/**
 * Sessions ordered by one column (ties by session id), offset-paged: the orders have no index to
 * walk, so a keyset gains nothing over an offset here.
 */
export async function listSessionRowsOrdered(
  db: Db,
  f: Omit<SessionFilter, 'before'> & { orderBy: SessionOrder; descending: boolean; offset: number },
): Promise<SessionRow[]> {
  const dir = f.descending ? desc : asc;
  return db
    .select(SESSION_WITH_MICROS)
    .from(sessions)
    .where(whereOf(f))
    .orderBy(dir(ORDER_SQL[f.orderBy]), dir(sessions.sessionId))
    .limit(f.limit)
    .offset(f.offset);
}

/**
 * Sessions by most recent activity, keyset-paged; reads only the rollup. Read through
 * executePrepared (rows as the driver reads them, its result emptied: docs/benchmarks.md, the
 * sessions lists), prepared for the shapes asked all the time (by project, agent and page: at most
 * 8 texts); a health tag, an upper bound or a text search runs unnamed.
 */
export async function listSessionRows(db: Db, f: SessionFilter): Promise<SessionRow[]> {
  const where: (SQL | undefined)[] = [
    whereOf(f),
    // A row comparison is an index condition; the equivalent a < t or (a = t and id < s) only filters.
    f.before === undefined
      ? undefined
      : sql`(${sessions.lastCallAt}, ${sessions.sessionId}) < (${isoMicros(f.before.lastCallAt, f.before.micros)}::timestamptz, ${f.before.sessionId})`,
  ];
  const common = f.healthTag === undefined && f.until === undefined && f.text === undefined;
  return executePrepared<SessionRow>(
    db,
    sql`select ${SESSION_COLUMNS} from ${sessions} where ${and(...where)}
        order by last_call_at desc, session_id desc limit ${f.limit}`,
    common,
  );
}

/**
 * SESSION_WITH_MICROS as a raw select list, aliased by field names, for the reads through
 * executePrepared (findSessionRow, listSessionRows): bigint columns come as text there.
 */
const SESSION_COLUMNS: SQL = sql.raw(
  [
    ...Object.entries(getTableColumns(sessions)).map(
      ([field, column]) => `${column.name} as "${field}"`,
    ),
    `(extract(microseconds from first_call_at)::int % 1000) as "firstCallUs"`,
    `(extract(microseconds from last_call_at)::int % 1000) as "lastCallUs"`,
  ].join(', '),
);

/**
 * The session's rollup row; with no project given, the most recent session of that id (ties by
 * project id, as sessionSpansQuery picks its project). Read prepared (executePrepared): one of a
 * session tree's two reads, made at once.
 */
export async function findSessionRow(
  db: Db,
  projectId: string | null,
  sessionId: string,
): Promise<SessionRow | undefined> {
  const project = projectId === null ? sql`` : sql`project_id = ${projectId} and `;
  const [row] = await executePrepared<SessionRow>(
    db,
    sql`select ${SESSION_COLUMNS} from ${sessions} where ${project}session_id = ${sessionId}
        order by last_call_at desc, project_id limit 1`,
  );
  // The driver reads bigint as text; drizzle's column (mode 'number') gave numbers.
  return (
    row && { ...row, inputTokens: Number(row.inputTokens), outputTokens: Number(row.outputTokens) }
  );
}

/**
 * Spans of one session: its session_id, or its trace_id for spans that carry no session id. Two
 * branches, each served by its own index (spans_session_idx, spans_sessionless_trace_idx), merged
 * in start order: an OR of the two cannot use either index, and a plan for it may walk every span
 * of the project. Raw SQL, for listSessionSpans's prepared read.
 *
 * `projectId` null: the project of the most recent session of that id (findSessionRow's rule),
 * found by the statement itself (sessions_id_idx), so a tree asked without a project reads its
 * session's row and its spans at once, not one after the other. One text for both forms: a custom
 * plan folds the coalesce to the project given; a second text would be a second statement to plan
 * on every pool connection (docs/benchmarks.md, the session tree's first reads per connection).
 */
export function sessionSpansQuery(projectId: string | null, sessionId: string, limit: number): SQL {
  const project = sql`coalesce(${projectId}::text, (select project_id from ${sessions} where session_id = ${sessionId}
               order by last_call_at desc, project_id limit 1))`;
  return sql`(select *, ${SPAN_MICROS} from ${spans}
               where project_id = ${project} and session_id = ${sessionId}
               order by started_at, span_id limit ${limit})
             union all
             (select *, ${SPAN_MICROS} from ${spans}
               where project_id = ${project} and session_id is null and trace_id = ${sessionId}
               order by started_at, span_id limit ${limit})
             order by started_at, span_id limit ${limit}`;
}

/** sessionSpansQuery's rows, read prepared (executePrepared). */
export async function listSessionSpans(
  db: Db,
  projectId: string | null,
  sessionId: string,
  limit: number,
): Promise<SpanRow[]> {
  const rows = await executePrepared<SpanColumns>(
    db,
    sessionSpansQuery(projectId, sessionId, limit),
  );
  return rows.map(spanRowOf);
}

/**
 * sessionSpansQuery's rows as arrays of values with the columns' names (model/session-tree-bytes.ts
 * SpanValues): the session tree's REST response is written from them without a span object.
 */
export async function listSessionSpanValues(
  db: Db,
  projectId: string | null,
  sessionId: string,
  limit: number,
): Promise<{ rows: unknown[][]; columns: string[] }> {
  return executePreparedValues(db, sessionSpansQuery(projectId, sessionId, limit));
}

/**
 * Sessions active in [since, until] (as listSessionRows selects them) per health tag, most first;
 * reads only the rollup.
 */
export async function countSessionsByHealth(
  db: Db,
  projectId: string | null,
  since: Date,
  until: Date | undefined,
): Promise<{ healthTag: string; sessions: number }[]> {
  return db
    .select({ healthTag: sessions.healthTag, sessions: sql<number>`count(*)::int` })
    .from(sessions)
    .where(
      and(
        projectId === null ? undefined : eq(sessions.projectId, projectId),
        gte(sessions.lastCallAt, since),
        until === undefined ? undefined : lte(sessions.firstCallAt, until),
      ),
    )
    .groupBy(sessions.healthTag)
    .orderBy(desc(sql`count(*)`), sessions.healthTag);
}

/** The most agents sumSessionsByAgent answers. */
export const MAX_AGENT_STATS = 1000;

/**
 * Sessions active in [since, until] (as listSessionRows selects them) summed per agent, most
 * sessions first (the first MAX_AGENT_STATS); sessions without an agent name are left out. Reads only the rollup.
 * Sums are float8, not int: a busy agent's calls over a long window may pass 2^31.
 */
export async function sumSessionsByAgent(
  db: Db,
  f: { projectId: string | null; agentName?: string; since: Date; until?: Date },
) {
  return db
    .select({
      agentName: sql<string>`${sessions.agentName}`,
      sessions: sql<number>`count(*)::float8`,
      toolCalls: sql<number>`coalesce(sum(${sessions.toolCalls}), 0)::float8`,
      failedCalls: sql<number>`coalesce(sum(${sessions.failedCalls}), 0)::float8`,
      preventedCalls: sql<number>`coalesce(sum(${sessions.preventedCalls}), 0)::float8`,
      estCostUsd: sql<number>`coalesce(sum(${sessions.estCostUsd}), 0)::float8`,
      lastCallAt: sql<Date>`max(${sessions.lastCallAt})`.mapWith(sessions.lastCallAt),
    })
    .from(sessions)
    .where(
      and(
        whereOf({ projectId: f.projectId, agentName: f.agentName, since: f.since, until: f.until }),
        isNotNull(sessions.agentName),
      ),
    )
    .groupBy(sessions.agentName)
    .orderBy(desc(sql`count(*)`), sessions.agentName)
    .limit(MAX_AGENT_STATS);
}
