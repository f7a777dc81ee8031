/**
 * Spans' REST JSON written straight from the rows the store read (each row's values in column
 * order): the same bytes as JSON.stringify of toSpanJson's objects, without a row object, `Span`,
 * JSON object or response string in between (docs/benchmarks.md, target 5). The session tree and
 * the spans list are written so.
 */
import { ascii, CLOSE_OBJECT, JsonBytes, type JsonScratch } from './json-bytes.ts';
import { isoMicros, toSpanJson, type Span } from './span.ts';

/**
 * Spans as the store reads them without an object per row: each row's values in column order,
 * `columns` naming them. The columns are named as the span's JSON keys (the spans table's names
 * are the API's), plus `started_us` and `ended_us`, each time's microseconds below the
 * millisecond; `started_at` and `ended_at` are Dates.
 */
export interface SpanValues {
  rows: readonly (readonly unknown[])[];
  columns: readonly string[];
}

/** toSpanJson's keys in its order (taken from it, so the two cannot part). */
const SPAN_KEYS = Object.keys(toSpanJson({ startedAt: new Date(0), endedAt: new Date(0) } as Span));
/** `{"span_id":`, `,"trace_id":`, …: each key with what goes before it. */
const KEY_BYTES = SPAN_KEYS.map((k, i) => ascii(`${i === 0 ? '{' : ','}${JSON.stringify(k)}:`));

/** Where a column is in rows of `columns`; throws when absent. */
export function columnOf(columns: readonly string[], name: string): number {
  const i = columns.indexOf(name);
  if (i < 0) throw new Error(`span rows without a ${name} column`);
  return i;
}

/**
 * A writer of one row's span object as toSpanJson's JSON, open: every key and value written, the
 * closing brace not (the tree adds `children` first).
 */
export function spanObjectWriter(
  columns: readonly string[],
): (out: JsonBytes, row: readonly unknown[]) => void {
  const startedAt = columnOf(columns, 'started_at');
  const endedAt = columnOf(columns, 'ended_at');
  const startedUs = columnOf(columns, 'started_us');
  const endedUs = columnOf(columns, 'ended_us');
  // Where each key's value is; -1 and -2 for the two times, written from their Date and microseconds.
  const cols = SPAN_KEYS.map((k) =>
    k === 'started_at' ? -1 : k === 'ended_at' ? -2 : columnOf(columns, k),
  );
  return (out, row) => {
    for (let k = 0; k < cols.length; k++) {
      out.raw(KEY_BYTES[k] as Uint8Array);
      const c = cols[k] as number;
      if (c >= 0) out.value(row[c]);
      else if (c === -1) out.string(isoMicros(row[startedAt] as Date, Number(row[startedUs] ?? 0)));
      else out.string(isoMicros(row[endedAt] as Date, Number(row[endedUs] ?? 0)));
    }
  };
}

/**
 * JSON.stringify(rows.map(toSpanJson)) of the first `count` rows (all by default) as UTF-8 bytes:
 * the spans list's response.
 */
export function spanListJsonBytes(
  spans: SpanValues,
  scratch?: JsonScratch,
  count = spans.rows.length,
): Buffer {
  const write = spanObjectWriter(spans.columns);
  const out = new JsonBytes(scratch);
  out.list(count, (i) => {
    write(out, spans.rows[i] as readonly unknown[]);
    out.raw(CLOSE_OBJECT);
  });
  return out.bytes();
}
