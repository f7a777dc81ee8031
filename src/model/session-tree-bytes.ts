/**
 * The session tree's REST response written straight from the rows the store read: the same bytes
 * as JSON.stringify(toSessionTreeJson(tree)), without a span object, its JSON object, the tree's
 * nodes or the response's string in between (docs/benchmarks.md, the session tree's tail).
 */
import { ascii, JsonBytes } from './json-bytes.ts';
import { toSessionJson, type Session } from './session.ts';
import { isoMicros, toSpanJson, type Span } from './span.ts';

/**
 * A session's spans in start order as the store reads them without an object per row: each row's
 * values in column order, `columns` naming them. The columns are named as the span's JSON keys
 * (the spans table's names are the API's), plus `started_us` and `ended_us`, each time's
 * microseconds below the millisecond; `started_at` and `ended_at` are Dates.
 */
export interface SpanValues {
  rows: readonly (readonly unknown[])[];
  columns: readonly string[];
}

/** toSpanJson's keys in its order (taken from it, so the two cannot part). */
const SPAN_KEYS = Object.keys(toSpanJson({ startedAt: new Date(0), endedAt: new Date(0) } as Span));
/** `{"span_id":`, `,"trace_id":`, …: each key with what goes before it. */
const KEY_BYTES = SPAN_KEYS.map((k, i) => ascii(`${i === 0 ? '{' : ','}${JSON.stringify(k)}:`));
const CHILDREN = ascii(',"children":');
const SESSION = ascii('{"session":');
const SPANS = ascii(',"spans":');
const TRUNCATED = ascii(',"truncated":');
const OPEN = ascii('[');
const COMMA = ascii(',');
const CLOSE_LIST = ascii(']');
const CLOSE_OBJECT = ascii('}');

/**
 * JSON.stringify(toSessionTreeJson({ session, spans: buildTree(spans), truncated })) as UTF-8
 * bytes, spans given as rows: the tree as buildTree makes it (one node per span id, the last row
 * of an id in the place of its first; children in start order; a span whose parent is absent, or
 * itself, a root).
 */
export function sessionTreeJsonBytes(
  session: Session,
  spans: SpanValues,
  truncated: boolean,
): Buffer {
  const at = (name: string) => {
    const i = spans.columns.indexOf(name);
    if (i < 0) throw new Error(`span rows without a ${name} column`);
    return i;
  };
  const startedAt = at('started_at');
  const endedAt = at('ended_at');
  const startedUs = at('started_us');
  const endedUs = at('ended_us');
  // Where each key's value is; -1 and -2 for the two times, written from their Date and microseconds.
  const cols = SPAN_KEYS.map((k) => (k === 'started_at' ? -1 : k === 'ended_at' ? -2 : at(k)));
  const idCol = at('span_id');
  const parentCol = at('parent_span_id');
  const rows = spans.rows;

  const { roots, children } = linkTree(
    rows.length,
    (i) => (rows[i] as unknown[])[idCol] as string,
    (i) => (rows[i] as unknown[])[parentCol] as string | null,
  );

  const out = new JsonBytes();
  const writeNodes = (list: readonly number[]) => {
    out.raw(OPEN);
    for (let n = 0; n < list.length; n++) {
      if (n > 0) out.raw(COMMA);
      const i = list[n] as number;
      const row = rows[i] as unknown[];
      for (let k = 0; k < cols.length; k++) {
        out.raw(KEY_BYTES[k] as Uint8Array);
        const c = cols[k] as number;
        if (c >= 0) out.value(row[c]);
        else if (c === -1)
          out.string(isoMicros(row[startedAt] as Date, Number(row[startedUs] ?? 0)));
        else out.string(isoMicros(row[endedAt] as Date, Number(row[endedUs] ?? 0)));
      }
      out.raw(CHILDREN);
      writeNodes(children[i] ?? NONE);
      out.raw(CLOSE_OBJECT);
    }
    out.raw(CLOSE_LIST);
  };
  out.raw(SESSION);
  out.utf8(JSON.stringify(toSessionJson(session)));
  out.raw(SPANS);
  writeNodes(roots);
  out.raw(TRUNCATED);
  out.ascii(truncated ? 'true' : 'false');
  out.raw(CLOSE_OBJECT);
  return out.bytes();
}

const NONE: readonly number[] = [];

/**
 * A session's tree over items 0..n-1 by parent span id, the rule of both its forms (buildTree and
 * sessionTreeJsonBytes): one node per span id, the last item of an id in the place of its first
 * (a Map keeps a key where it was first set); children in that order; an item whose parent is
 * absent, or itself, a root.
 */
export function linkTree(
  n: number,
  id: (i: number) => string,
  parent: (i: number) => string | null | undefined,
): { roots: number[]; children: (number[] | undefined)[] } {
  const byId = new Map<string, number>();
  for (let i = 0; i < n; i++) byId.set(id(i), i);
  const children = new Array<number[] | undefined>(n);
  const roots: number[] = [];
  for (const i of byId.values()) {
    const parentId = parent(i);
    const p = parentId ? byId.get(parentId) : undefined;
    if (p !== undefined && p !== i) (children[p] ??= []).push(i);
    else roots.push(i);
  }
  return { roots, children };
}
