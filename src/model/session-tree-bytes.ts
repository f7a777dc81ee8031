/**
 * The session tree's REST response written straight from the rows the store read: the same bytes
 * as JSON.stringify(toSessionTreeJson(tree)), without a span object, its JSON object, the tree's
 * nodes or the response's string in between (docs/benchmarks.md, the session tree's tail).
 */
import { ascii, CLOSE_OBJECT, JsonBytes, type JsonScratch } from './json-bytes.ts';
import { toSessionJson, type Session } from './session.ts';
import { columnOf, spanObjectWriter, type SpanValues } from './span-bytes.ts';

export type { SpanValues };

const CHILDREN = ascii(',"children":');
const SESSION = ascii('{"session":');
const SPANS = ascii(',"spans":');
const TRUNCATED = ascii(',"truncated":');

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
  scratch?: JsonScratch,
): Buffer {
  const writeSpan = spanObjectWriter(spans.columns);
  const idCol = columnOf(spans.columns, 'span_id');
  const parentCol = columnOf(spans.columns, 'parent_span_id');
  const rows = spans.rows;

  const { roots, children } = linkTree(
    rows.length,
    (i) => (rows[i] as unknown[])[idCol] as string,
    (i) => (rows[i] as unknown[])[parentCol] as string | null,
  );

  const out = new JsonBytes(scratch);
  const writeNodes = (list: readonly number[]): void =>
    out.list(list.length, (n) => {
      const i = list[n] as number;
      writeSpan(out, rows[i] as unknown[]);
      out.raw(CHILDREN);
      writeNodes(children[i] ?? NONE);
      out.raw(CLOSE_OBJECT);
    });
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
