import { and, eq, gte, lte, sql, type SQL } from 'drizzle-orm';
import type { Sql } from 'postgres';
import { isoMicros, toSpanJson, type MinuteCount, type Span } from '../model/span.ts';
import { execute, executePrepared, executePreparedValues, type Db } from './db.ts';
import { commitBehind, type EarlyTransaction } from './early-transaction.ts';
import { deleteDefaultBefore, dropPartitionsBefore } from './partitions.ts';
import { rollupRows } from './rollup-rows.ts';
import { ingestQuery, ingestStatement } from './ingest-query.ts';
import { spans } from './schema.ts';
import { storedKey, stripNul, type StoredSpans } from './span-rows.ts';

/**
 * Inserts spans and folds the new ones into the session and lineage rollups in one statement (one
 * round trip, atomic by itself). The batch travels as one JSON parameter expanded by
 * json_populate_recordset: no per-row parameters, and the same SQL on both drivers. A span already
 * stored for the project with the same id and start time is skipped, so a retried export is stored
 * (and counted) once; the same id with another start time is another span (the key includes the
 * partition key, started_at).
 * `encoded`: the batch as encodeSpans gave it, in parts (the group writer encodes each request
 * when it arrives, so a large group is not encoded in one turn of the event loop).
 */
export async function insertSpans(
  db: Db,
  batch: readonly Span[],
  encoded: readonly string[] = [encodeSpans(batch)],
): Promise<StoredSpans> {
  if (batch.length === 0) return 'all';
  const rowsJson = `[${encoded.join(',')}]`;
  const { rows } = await execute<IngestRow>(
    db,
    ingestStatement(rowsJson, batch.length, rollupRows(batch)),
  );
  return storedOf(rows[0], batch.length);
}

/**
 * insertSpans on a postgres.js client (the writer's, Store.writer, on both back ends) as a prepared
 * statement: drizzle runs every statement unnamed, which the database parses and plans anew and
 * postgres.js describes first (a second round trip) on every commit. Prepared, each connection
 * parses it once; then a commit is one Bind and Execute. The statement's text is fixed
 * (ingest-query.ts), so each connection keeps two. In the writer's transactions on PostgreSQL it
 * runs on its generic plan (early-transaction.ts GENERIC_PLANS), made once per connection.
 */
export async function insertSpansPrepared(
  client: Sql,
  batch: readonly Span[],
  encoded: readonly string[] = [encodeSpans(batch)],
  early?: EarlyTransaction,
): Promise<StoredSpans> {
  if (batch.length === 0) return 'all';
  const q = ingestQuery(`[${encoded.join(',')}]`, batch.length, rollupRows(batch));
  if (!early) {
    const rows = await client.unsafe<IngestRow[]>(q.sql, q.params as never[], { prepare: true });
    return storedOf(rows[0], batch.length);
  }
  // In a transaction begun early (early-transaction.ts): the COMMIT goes right behind the
  // statement, one round trip as in autocommit, and a failed statement's error is this call's.
  const rows = await commitBehind(client, early, (tx) =>
    tx.unsafe<IngestRow[]>(q.sql, q.params as never[], { prepare: true }),
  );
  return storedOf(rows[0], batch.length);
}

interface IngestRow {
  stored: number;
  keys: [string, string, number][] | null;
}

function storedOf(row: IngestRow | undefined, spanCount: number): StoredSpans {
  if (row && row.stored === spanCount) return 'all';
  // Both drivers parse json columns; null when nothing was stored.
  const keys = row?.keys ?? [];
  return new Set(keys.map(([projectId, spanId, ms]) => storedKey(projectId, spanId, ms)));
}

/** Spans as insertSpans stores them: their rows as JSON objects, comma-separated (no brackets). */
export function encodeSpans(batch: readonly Span[]): string {
  // The JSON form's keys are the column names json_populate_recordset maps by.
  const rows = batch.map(toSpanJson);
  let json = JSON.stringify(rows);
  // PostgreSQL text and json cannot hold NUL: strip it (from values and keys) rather than fail the group.
  if (json.includes('\\u0000')) json = JSON.stringify(stripNul(rows));
  return json.slice(1, -1);
}

export interface SpanFilter {
  /** null = every project (a global key that named none). */
  projectId: string | null;
  serverName?: string;
  toolName?: string;
  sessionId?: string;
  traceId?: string;
  agentName?: string;
  status?: string;
  spanType?: string;
  since?: Date;
  until?: Date;
  /** Exclusive upper bound for keyset paging, newest first. */
  before?: { startedAt: Date; micros?: number; spanId: string };
  limit: number;
}

/** Newest first, keyset-paged on (started_at, span_id). */
export async function listSpans(db: Db, f: SpanFilter): Promise<Span[]> {
  const { query, common } = listSpansQuery(f);
  const rows = await executePrepared<SpanColumns>(db, query, common);
  return rows.map((r) => rowToSpan(spanRowOf(r)));
}

/**
 * listSpans's rows as arrays of values with the columns' names (model/span-bytes.ts SpanValues):
 * the spans list's REST response is written from them without a span object.
 */
export async function listSpanValues(
  db: Db,
  f: SpanFilter,
): Promise<{ rows: unknown[][]; columns: string[] }> {
  const { query, common } = listSpansQuery(f);
  return executePreparedValues(db, query, common);
}

/** listSpans's statement, and whether it is of a shape read prepared. */
function listSpansQuery(f: SpanFilter): { query: SQL; common: boolean } {
  const where: (SQL | undefined)[] = [
    f.projectId === null ? undefined : eq(spans.projectId, f.projectId),
    f.serverName === undefined ? undefined : eq(spans.serverName, f.serverName),
    f.toolName === undefined ? undefined : eq(spans.toolName, f.toolName),
    f.sessionId === undefined ? undefined : eq(spans.sessionId, f.sessionId),
    f.traceId === undefined ? undefined : eq(spans.traceId, f.traceId),
    f.agentName === undefined ? undefined : eq(spans.agentName, f.agentName),
    f.status === undefined ? undefined : eq(spans.status, f.status),
    f.spanType === undefined ? undefined : eq(spans.spanType, f.spanType),
    f.since === undefined ? undefined : gte(spans.startedAt, f.since),
    f.until === undefined ? undefined : lte(spans.startedAt, f.until),
    // A row comparison is an index condition; the equivalent a < t or (a = t and id < s) only filters.
    f.before === undefined
      ? undefined
      : sql`(${spans.startedAt}, ${spans.spanId}) < (${isoMicros(f.before.startedAt, f.before.micros)}::timestamptz, ${f.before.spanId})`,
  ];
  // Prepared for the shapes asked all the time, the newest spans (by project or not) and a trace's
  // across projects, by page (at most 6 texts); the other filters' combinations run unnamed
  // (executePrepared). A trace's spans in one project stay unnamed too: PostgreSQL's generic plan
  // for it, taken after five runs, read them at twice the time of the unprepared statement on a
  // freshly loaded PGlite (docs/benchmarks.md, reads right after a load).
  const { serverName, toolName, sessionId, agentName, status, spanType, since, until } = f;
  const common =
    [serverName, toolName, sessionId, agentName, status, spanType, since, until].every(
      (v) => v === undefined,
    ) && !(f.projectId !== null && f.traceId !== undefined);
  const query = sql`select *, ${SPAN_MICROS} from ${spans} where ${and(...where) ?? sql`true`}
        order by started_at desc, span_id desc limit ${f.limit}`;
  return { query, common };
}

/** A span as the store reads it: every column but ingested_at, plus each time's microseconds. */
export type SpanRow = Omit<typeof spans.$inferSelect, 'ingestedAt'> & {
  startedUs?: number | string;
  endedUs?: number | string;
};

type SpanTable = typeof spans._.columns;
/** A row of `select *` and SPAN_MICROS from spans, as the driver reads it: columns by their names. */
export type SpanColumns = {
  [K in keyof SpanTable as SpanTable[K]['_']['name']]: (typeof spans.$inferSelect)[K];
} & {
  // ts() in schema.ts names its columns with a plain string, so the mapping above cannot.
  started_at: Date;
  ended_at: Date;
  started_us: number | string;
  ended_us: number | string;
};

/**
 * Each time's microseconds below the millisecond (a JS Date holds ms), after `select *` in a read of
 * spans through executePrepared: its values come as the driver parses them (timestamps by
 * pg-time.ts, jsonb as JSON), the values drizzle's column mapping gave at a third of a 200-span
 * read's CPU more. The statement's text stays short (`*`, not an aliased list), so it is whole in
 * pg_stat_activity (1,024 bytes by default).
 */
export const SPAN_MICROS: SQL = sql.raw(
  `(extract(microseconds from started_at)::int % 1000) as started_us, ` +
    `(extract(microseconds from ended_at)::int % 1000) as ended_us`,
);

/** A span row by field names from one by column names. */
export function spanRowOf(r: SpanColumns): SpanRow {
  return {
    projectId: r.project_id,
    spanId: r.span_id,
    traceId: r.trace_id,
    parentSpanId: r.parent_span_id,
    sessionId: r.session_id,
    spanType: r.span_type,
    serverName: r.server_name,
    toolName: r.tool_name,
    agentName: r.agent_name,
    status: r.status,
    error: r.error,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    latencyMs: r.latency_ms,
    inputArgs: r.input_args,
    outputResult: r.output_result,
    llmInput: r.llm_input,
    llmOutput: r.llm_output,
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    modelId: r.model_id,
    healthTag: r.health_tag,
    costUsd: r.cost_usd,
    costEstimated: r.cost_estimated,
    targetAgentName: r.target_agent_name,
    finishReason: r.finish_reason,
    cacheReadTokens: r.cache_read_tokens,
    cacheCreationTokens: r.cache_creation_tokens,
    thinkingTokens: r.thinking_tokens,
    lineageProvenance: r.lineage_provenance,
    lineageStatus: r.lineage_status,
    schemaVersion: r.schema_version,
    replayOf: r.replay_of,
    startedUs: r.started_us,
    endedUs: r.ended_us,
  };
}

export function rowToSpan(r: SpanRow): Span {
  return {
    spanId: r.spanId,
    traceId: r.traceId,
    parentSpanId: r.parentSpanId,
    sessionId: r.sessionId,
    projectId: r.projectId,
    spanType: r.spanType as Span['spanType'],
    serverName: r.serverName,
    toolName: r.toolName,
    agentName: r.agentName,
    status: r.status as Span['status'],
    error: r.error,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    startedAtMicros: Number(r.startedUs ?? 0),
    endedAtMicros: Number(r.endedUs ?? 0),
    latencyMs: r.latencyMs,
    inputArgs: r.inputArgs,
    outputResult: r.outputResult,
    llmInput: r.llmInput,
    llmOutput: r.llmOutput,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    modelId: r.modelId,
    healthTag: r.healthTag as Span['healthTag'],
    costUsd: r.costUsd,
    costEstimated: r.costEstimated,
    targetAgentName: r.targetAgentName,
    finishReason: r.finishReason,
    cacheReadTokens: r.cacheReadTokens,
    cacheCreationTokens: r.cacheCreationTokens,
    thinkingTokens: r.thinkingTokens,
    lineageProvenance: r.lineageProvenance,
    lineageStatus: r.lineageStatus,
    schemaVersion: r.schemaVersion,
    replayOf: r.replayOf,
  };
}

export interface SpanRetentionOutcome {
  /** Day partitions dropped whole (every span in them started before the cutoff). */
  droppedPartitions: string[];
  /** Rows deleted from the default partition (times outside the day partitions). */
  defaultRowsDeleted: number;
}

/**
 * Removes spans that started before `cutoff`: the day partitions entirely older are dropped whole,
 * old rows of the default partition are deleted in chunks; spans in the day holding the cutoff stay
 * until that whole day is past it. Then the rollup rows older than the cutoff go.
 */
export async function deleteSpansBefore(
  db: Db,
  cutoff: Date,
  chunk = 10_000,
): Promise<SpanRetentionOutcome> {
  const droppedPartitions = await dropPartitionsBefore(db, cutoff);
  const defaultRowsDeleted = await deleteDefaultBefore(db, cutoff, chunk);
  const iso = cutoff.toISOString();
  await execute(db, sql`delete from sessions where last_call_at < ${iso}::timestamptz`);
  await execute(db, sql`delete from session_tools where last_started_at < ${iso}::timestamptz`);
  await execute(
    db,
    sql`delete from lineage_hourly where hour < date_trunc('hour', ${iso}::timestamptz)`,
  );
  // A block goes with its last hour: the hours kept before it still sum a window's first hours.
  await execute(
    db,
    sql`delete from lineage_blocks where block + interval '4 hours' <= date_trunc('hour', ${iso}::timestamptz)`,
  );
  await execute(
    db,
    sql`delete from span_hourly where hour < date_trunc('hour', ${iso}::timestamptz)`,
  );
  await execute(db, sql`delete from span_daily where day < date_trunc('day', ${iso}::timestamptz)`);
  return { droppedPartitions, defaultRowsDeleted };
}

/** One span by id within a project (the primary key's prefix); the earliest if a client reused the id. */
export async function findSpan(
  db: Db,
  projectId: string,
  spanId: string,
): Promise<Span | undefined> {
  const [row] = await db
    .select()
    .from(spans)
    .where(and(eq(spans.projectId, projectId), eq(spans.spanId, spanId)))
    .orderBy(spans.startedAt)
    .limit(1);
  return row && rowToSpan(row);
}

/**
 * Spans and failures per minute that started in [since, until), from spans_project_time_idx (or
 * spans_time_idx for every project); minutes without spans are absent.
 */
export async function countSpansPerMinute(
  db: Db,
  projectId: string | null,
  since: Date,
  until: Date,
): Promise<MinuteCount[]> {
  const { rows } = await execute<{ minute: string | Date; spans: number; errors: number }>(
    db,
    sql`select date_trunc('minute', started_at at time zone 'UTC') at time zone 'UTC' as minute,
               count(*)::int as spans,
               (count(*) filter (where status in ('error', 'timeout')))::int as errors
          from spans
         where ${projectId === null ? sql`true` : sql`project_id = ${projectId}`}
           and started_at >= ${since.toISOString()}::timestamptz
           and started_at < ${until.toISOString()}::timestamptz
         group by 1 order by 1`,
  );
  return rows.map((r) => ({ minute: new Date(r.minute), spans: r.spans, errors: r.errors }));
}
