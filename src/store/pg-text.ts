/**
 * Text an MCP server sent is hostile data, and PostgreSQL refuses some of it: U+0000 in `text`
 * and `jsonb` ("unsupported Unicode escape sequence"), and unpaired UTF-16 surrogates in `jsonb`.
 * One such character used to fail the whole statement, so a server could blind the checks and
 * scans of itself. The repositories store such strings escaped and read them back decoded:
 *
 * - a refused character (and the marker itself) is written as MARK + 6 hex digits of its code;
 * - every other string, the common case, is stored as it is (one regex test, no copy).
 *
 * The mapping is reversible, so hashes, drift diffs, pins and evidence see the original text.
 * MARK is U+10FFFD (private use, plane 16): nothing legitimate uses it, and a string that does
 * contains it is escaped too, so decoding never misreads server text.
 */
const MARK = '\u{10FFFD}';
/** NUL, unpaired surrogates (in `u` mode a class of surrogates matches only lone ones), the marker. */
const REFUSED = /[\u0000\uD800-\uDFFF\u{10FFFD}]/u;
const REFUSED_G = new RegExp(REFUSED.source, 'gu');
const ENCODED_G = /\u{10FFFD}([0-9a-f]{6})/gu;

/** A string PostgreSQL accepts in text and jsonb; `fromPg` gives the original back. */
export function pgText(s: string): string {
  if (!REFUSED.test(s)) return s;
  return s.replace(
    REFUSED_G,
    (c) => `${MARK}${(c.codePointAt(0) ?? 0).toString(16).padStart(6, '0')}`,
  );
}

/** The original of a string `pgText` wrote. */
export function fromPgText(s: string): string {
  if (!s.includes(MARK)) return s;
  return s.replace(ENCODED_G, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)));
}

/** `pgText` on every string and object key of a JSON value; the value itself when nothing needs it. */
export function toPg<T>(value: T): T {
  return map(value, pgText) as T;
}

/** `fromPgText` on every string and object key of a value read back. */
export function fromPg<T>(value: T): T {
  return map(value, fromPgText) as T;
}

function map(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v = map(value[i], f);
      if (v !== value[i]) (out ??= value.slice())[i] = v;
    }
    return out ?? value;
  }
  // Keys are server text too (property names); a changed object is rebuilt in its key order.
  const obj = value as Record<string, unknown>;
  const entries: [string, unknown][] = [];
  let changed = false;
  for (const key in obj) {
    const k = f(key);
    const v = map(obj[key], f);
    if (k !== key || v !== obj[key]) changed = true;
    entries.push([k, v]);
  }
  return changed ? Object.fromEntries(entries) : value;
}
