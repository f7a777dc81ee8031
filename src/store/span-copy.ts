import type { Writable } from 'node:stream';
import type { Sql } from 'postgres';
import { commitBehind, type EarlyTransaction } from './early-transaction.ts';
import { isoMicros, type Span } from '../model/span.ts';
import { isTransient } from './db.ts';
import { concat } from './pg-wire.ts';
import type { PgliteThread } from './pglite-thread.ts';
import { rollupRows } from './rollup-rows.ts';
import { ingestQuery } from './ingest-query.ts';
import { COLUMN_NAMES, COLUMNS, stripNul, type StoredSpans } from './span-rows.ts';

/**
 * The fast form of the ingest statement on PostgreSQL (docs/ingest.md#derived-data): the group's
 * spans go in with `COPY spans FROM STDIN` and its rollup rows (rollup-rows.ts, aggregated here)
 * are upserted by the same statement as always, with no span rows, in one transaction. COPY
 * parses text rows at a fraction of json_populate_recordset's cost and inserts them in batches,
 * but cannot skip a span that is already stored: a retried export makes it fail (a unique
 * violation), and so does a value PostgreSQL refuses. 'refused' then: nothing of the group was
 * stored, and the caller commits it through the statement, which stores only the new spans or
 * says what is wrong with the group.
 * `pglite`: PGlite's thread, which cannot speak COPY's sub-protocol: it loads the rows as
 * `COPY … FROM '/dev/blob'` inside the same transaction (pglite-thread.ts copyIn), and the upsert
 * is a prepared statement (planned once, not per group).
 */
export async function copySpans(
  client: Sql,
  batch: readonly Span[],
  text: readonly Uint8Array[],
  pglite?: PgliteThread['copyIn'],
  early?: EarlyTransaction,
): Promise<StoredSpans | 'refused'> {
  if (batch.length === 0) return 'all';
  // null when a key holds NUL (stripped on the way in): the statement aggregates the stored keys.
  const rollups = rollupRows(batch);
  if (rollups === null) return 'refused';
  const upsert = ingestQuery('[]', 0, rollups);
  try {
    if (!pglite) return await pipelined(client, text, upsert, early);
    await client.begin(async (tx) => {
      // Joined into a buffer of its own (also for one request: the writer keeps its requests' rows
      // for a retry), which the thread takes without a copy.
      await pglite(COPY_BLOB, concat(text));
      // After a failed COPY this fails too (the transaction is aborted), and begin rolls back.
      // Prepared: parsed and planned once per connection (insertSpansPrepared says why).
      await tx.unsafe(upsert.sql, upsert.params as never[], { prepare: true });
    });
    return 'all';
  } catch (err) {
    if (isTransient(err)) throw err;
    return 'refused';
  }
}

/**
 * The transaction on PostgreSQL in three round trips instead of five: the upsert and the COMMIT
 * go right after the rows' end (CopyDone), without waiting for the COPY's answer or the upsert's.
 * `sql.begin` with each awaited waited for BEGIN, the COPY, the rows, the upsert and the COMMIT in
 * turn: at batch 25 the run is bound by the commit's latency, and each round trip waits for both
 * the backend and a busy event loop to come round (docs/benchmarks.md, batch 25 on PostgreSQL).
 *
 * A failure anywhere in the transaction aborts it (commitBehind): the group counts as stored only
 * if the upsert, the last statement before the COMMIT, succeeded too; a COPY refused before its
 * rows fails the first step, and `begin` rolls back as before.
 */
async function pipelined(
  client: Sql,
  text: readonly Uint8Array[],
  upsert: ReturnType<typeof ingestQuery>,
  early?: EarlyTransaction,
): Promise<'all'> {
  await commitBehind(
    client,
    early,
    // Prepared: parsed and planned once per connection (insertSpansPrepared says why).
    (tx) => tx.unsafe(upsert.sql, upsert.params as never[], { prepare: true }),
    async (tx) => copyIn(await tx.unsafe(COPY).writable(), text),
  );
  return 'all';
}

/**
 * Writes the rows and resolves once the end of the data (CopyDone) is sent. Not on the stream's
 * finish: postgres.js (3.4.9, its issue 1173) never finishes the stream of a COPY the server
 * failed after its end, which would hold the transaction open forever. A COPY that fails while
 * rows are still being written errors the stream: rejected.
 *
 * The group's rows go as few CopyData messages as COPY_MESSAGE_BYTES allows (one for a group of
 * small spans): postgres.js writes each chunk to the socket as a message of its own, one write and
 * (with TCP_NODELAY, pg-socket.ts) one segment per request of the group. PostgreSQL refuses a
 * message over 1 GB and closes the connection, which a group of large LLM spans could reach. And a stream that ended normally is not destroyed the way postgres.js destroys it,
 * which writes a CopyFail ("null") that PostgreSQL, past the COPY, reads and ignores: one more
 * write and wake-up per commit (docs/benchmarks.md, batch 25 on PostgreSQL).
 */
function copyIn(sink: Writable, text: readonly Uint8Array[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const final = sink._final?.bind(sink);
    if (!final) return reject(new Error('COPY stream without a final step'));
    sink._final = (callback) => {
      final(callback);
      resolve();
    };
    const destroy = sink._destroy.bind(sink);
    sink._destroy = (err, callback) => (err ? destroy(err, callback) : callback(null));
    sink.once('error', reject);
    for (const rows of messages(text)) sink.write(rows);
    sink.end();
  });
}

/** The most bytes joined into one CopyData message (a request's rows larger than it go alone). */
export const COPY_MESSAGE_BYTES = 8 * 1024 * 1024;

/** The group's rows joined into messages of at most COPY_MESSAGE_BYTES, empty ones left out. */
function messages(text: readonly Uint8Array[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let run: Uint8Array[] = [];
  let bytes = 0;
  const flush = () => {
    if (bytes > 0) out.push(run.length === 1 ? (run[0] as Uint8Array) : concat(run));
    run = [];
    bytes = 0;
  };
  for (const rows of text) {
    if (rows.length === 0) continue;
    if (bytes > 0 && bytes + rows.length > COPY_MESSAGE_BYTES) flush();
    run.push(rows);
    bytes += rows.length;
  }
  flush();
  return out;
}

const COPY = `copy spans (${COLUMN_NAMES}) from stdin`;
const COPY_BLOB = `copy spans (${COLUMN_NAMES}) from '/dev/blob'`;

/**
 * Spans as COPY's text format rows (tab-separated, `\N` for null, backslash escapes), in
 * COLUMNS order: the same values the JSON form (toSpanJson) stores. NUL, which text and jsonb
 * cannot hold, is dropped as the JSON form drops it. Each column is read from the span itself
 * (FIELDS), not from a toSpanJson object, and each row goes into one UTF-8 buffer as it is made:
 * a string of the whole request, kept until its group commits, was hundreds of thousands of
 * small strings for the collector to move (docs/benchmarks.md, real exporter traffic).
 *
 * A one-off encoding (tests, benches): the writer encodes through its own CopyEncoder, which keeps
 * its scratch buffer between requests.
 */
export function encodeSpansCopy(batch: readonly Span[]): Buffer {
  return new CopyEncoder(64 * 1024).encode(batch);
}

/**
 * Encodes spans as COPY's rows (encodeSpansCopy) through a scratch buffer of its own, kept from one
 * request to the next, into which every request's rows are written before they are copied out at
 * their size. A buffer per request sized for the worst case (2 kB a span) was three times the rows
 * of the bench's spans, and each one stayed allocated, outside the V8 heap, until a collection
 * found it after its group committed: under the PGlite bench row's load the main thread's
 * ArrayBuffers waiting for a collection were 35-70 MB at the peak, and 13-18 MB with this and the
 * copies the database thread no longer makes (docs/benchmarks.md#memory-at-the-peak-on-pglite-second-round-2026-11-27-1115-1300-utc).
 * One that grew past SCRATCH_KEEP_BYTES (a request of huge spans) is not kept. One encoder per
 * writer (compose/ingest.ts spanCommit), not one per module: no state shared between the apps of
 * one process (issue 23).
 */
export class CopyEncoder {
  private scratch: Buffer;

  constructor(scratchBytes = 256 * 1024) {
    this.scratch = Buffer.allocUnsafeSlow(scratchBytes);
  }

  encode(batch: readonly Span[]): Buffer {
    let buf = this.scratch;
    let at = 0;
    for (const s of batch) {
      let row = ENCODERS[0]!(s);
      for (let i = 1; i < ENCODERS.length; i++) row += '\t' + ENCODERS[i]!(s);
      row += '\n';
      // A UTF-16 code unit is at most 3 bytes of UTF-8.
      if (at + row.length * 3 > buf.length) {
        const bigger = Buffer.allocUnsafeSlow(Math.max(buf.length * 2, at + row.length * 3));
        buf.copy(bigger, 0, 0, at);
        buf = bigger;
      }
      at += buf.write(row, at);
    }
    if (buf.length <= SCRATCH_KEEP_BYTES) this.scratch = buf;
    // The rows wait for their group's commit in memory of their own size, not in the scratch.
    const out = Buffer.allocUnsafeSlow(at);
    buf.copy(out, 0, 0, at);
    return out;
  }
}

const SCRATCH_KEEP_BYTES = 4 * 1024 * 1024;

type Column = (typeof COLUMNS)[number];
const str = (v: string | null | undefined) => (v === null || v === undefined ? '\\N' : escape(v));
const num = (v: number | null | undefined) =>
  v === null || v === undefined || !Number.isFinite(v) ? '\\N' : String(v);

/** Every column's text, as toSpanJson gives its value (the type makes each column have one). */
const FIELDS: Record<Column, (s: Span) => string> = {
  project_id: (s) => str(s.projectId),
  span_id: (s) => str(s.spanId),
  trace_id: (s) => str(s.traceId),
  parent_span_id: (s) => str(s.parentSpanId),
  session_id: (s) => str(s.sessionId),
  span_type: (s) => str(s.spanType),
  server_name: (s) => str(s.serverName),
  tool_name: (s) => str(s.toolName),
  agent_name: (s) => str(s.agentName),
  status: (s) => str(s.status),
  error: (s) => str(s.error),
  started_at: (s) => isoMicros(s.startedAt, s.startedAtMicros),
  ended_at: (s) => isoMicros(s.endedAt, s.endedAtMicros),
  latency_ms: (s) => num(s.latencyMs),
  input_args: (s) => (s.inputArgs === null ? '\\N' : escape(jsonText(s.inputArgs))),
  output_result: (s) => str(s.outputResult),
  llm_input: (s) => str(s.llmInput),
  llm_output: (s) => str(s.llmOutput),
  input_tokens: (s) => num(s.inputTokens),
  output_tokens: (s) => num(s.outputTokens),
  model_id: (s) => str(s.modelId),
  health_tag: (s) => str(s.healthTag),
  cost_usd: (s) => num(s.costUsd),
  cost_estimated: (s) =>
    s.costEstimated === null || s.costEstimated === undefined ? '\\N' : String(s.costEstimated),
  target_agent_name: (s) => str(s.targetAgentName),
  finish_reason: (s) => str(s.finishReason),
  cache_read_tokens: (s) => num(s.cacheReadTokens),
  cache_creation_tokens: (s) => num(s.cacheCreationTokens),
  thinking_tokens: (s) => num(s.thinkingTokens),
  lineage_provenance: (s) => str(s.lineageProvenance),
  lineage_status: (s) => str(s.lineageStatus),
  schema_version: (s) => str(s.schemaVersion),
  replay_of: (s) => str(s.replayOf),
};
const ENCODERS = COLUMNS.map((c) => FIELDS[c]);

/** JSON for a jsonb column; a NUL in a string or key becomes "\u0000", which jsonb refuses. */
function jsonText(v: object): string {
  const json = JSON.stringify(v);
  return json.includes('\\u0000') ? JSON.stringify(stripNul(v)) : json;
}

/**
 * COPY's text escapes. Most values hold none of these characters: five `includes` scans are
 * cheaper than one regex pass with a replacement callback.
 */
function escape(t: string): string {
  if (t.includes('\\')) t = t.replaceAll('\\', '\\\\');
  if (t.includes('\n')) t = t.replaceAll('\n', '\\n');
  if (t.includes('\r')) t = t.replaceAll('\r', '\\r');
  if (t.includes('\t')) t = t.replaceAll('\t', '\\t');
  if (t.includes('\0')) t = t.replaceAll('\0', '');
  return t;
}
