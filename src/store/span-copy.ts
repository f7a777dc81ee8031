import type { Writable } from 'node:stream';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Sql } from 'postgres';
import { toSpanJson, type Span } from '../model/span.ts';
import { isTransient } from './db.ts';
import { rollupRows } from './rollup-rows.ts';
import { insertWithRollups } from './rollup-sql.ts';
import { COLUMN_LIST, COLUMN_NAMES, COLUMNS, stripNul, type StoredSpans } from './span-rows.ts';

/**
 * The fast form of the ingest statement on PostgreSQL (docs/ingest.md#derived-data): the group's
 * spans go in with `COPY spans FROM STDIN` and its rollup rows (rollup-rows.ts, aggregated here)
 * are upserted by the same statement as always, with no span rows, in one transaction. COPY
 * parses text rows at a fraction of json_populate_recordset's cost and inserts them in batches,
 * but cannot skip a span that is already stored: a retried export makes it fail (a unique
 * violation), and so does a value PostgreSQL refuses. 'refused' then: nothing of the group was
 * stored, and the caller commits it through the statement, which stores only the new spans or
 * says what is wrong with the group. PGlite's thread does not speak COPY's sub-protocol; it keeps
 * the statement.
 */
export async function copySpans(
  client: Sql,
  batch: readonly Span[],
  text: readonly string[],
): Promise<StoredSpans | 'refused'> {
  if (batch.length === 0) return 'all';
  // null when a key holds NUL (stripped on the way in): the statement aggregates the stored keys.
  const rollups = rollupRows(batch);
  if (rollups === null) return 'refused';
  const upsert = DIALECT.sqlToQuery(insertWithRollups(COLUMN_LIST, '[]', 0, rollups));
  try {
    await client.begin(async (tx) => {
      await copyIn(await tx.unsafe(COPY).writable(), text);
      // After a failed COPY this fails too (the transaction is aborted), and begin rolls back.
      await tx.unsafe(upsert.sql, upsert.params as never[]);
    });
    return 'all';
  } catch (err) {
    if (isTransient(err)) throw err;
    return 'refused';
  }
}

/**
 * Writes the rows and resolves once the end of the data (CopyDone) is sent. Not on the stream's
 * finish: postgres.js (3.4.9, its issue 1173) never finishes the stream of a COPY the server
 * failed after its end, which would hold the transaction open forever. A COPY that fails while
 * rows are still being written errors the stream: rejected.
 */
function copyIn(sink: Writable, text: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const final = sink._final?.bind(sink);
    if (!final) return reject(new Error('COPY stream without a final step'));
    sink._final = (callback) => {
      final(callback);
      resolve();
    };
    sink.once('error', reject);
    for (const t of text) if (t !== '') sink.write(t);
    sink.end();
  });
}

const DIALECT = new PgDialect();
const COPY = `copy spans (${COLUMN_NAMES}) from stdin`;

/**
 * Spans as COPY's text format rows (tab-separated, `\N` for null, backslash escapes), in
 * COLUMNS order: the same values the JSON form stores. NUL, which text and jsonb cannot hold, is
 * dropped as the JSON form drops it.
 */
export function encodeSpansCopy(batch: readonly Span[]): string {
  let out = '';
  for (const s of batch) {
    const row = toSpanJson(s) as Record<string, unknown>;
    for (let i = 0; i < COLUMNS.length; i++) {
      out += (i === 0 ? '' : '\t') + field(row[COLUMNS[i] as string]);
    }
    out += '\n';
  }
  return out;
}

function field(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '\\N';
  if (typeof v === 'object') return escape(jsonText(v));
  return escape(String(v));
}

/** JSON for a jsonb column; a NUL in a string or key becomes "\u0000", which jsonb refuses. */
function jsonText(v: object): string {
  const json = JSON.stringify(v);
  return json.includes('\\u0000') ? JSON.stringify(stripNul(v)) : json;
}

const ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\0': '',
};
const SPECIAL = /[\\\n\r\t\0]/g;
const escape = (t: string) => t.replace(SPECIAL, (c) => ESCAPES[c] as string);
