/**
 * Payloads for the span side panel: pretty JSON up to a size limit (1 MB), above it a preview of the
 * first bytes and a flag to offer the download instead; prepareJson runs in json-view.worker.ts for
 * large strings (shouldPrepareInWorker). The renderer escapes HTML; visibleEscapes additionally
 * turns control, bidi and invisible characters into visible `\u{…}` so hostile text (a
 * right-to-left override, a terminal escape) never renders raw.
 */

export const PRETTY_LIMIT_BYTES = 1_000_000;
export const PREVIEW_BYTES = 64 * 1024;
/** Strings longer than this are parsed in the worker. */
export const WORKER_THRESHOLD_CHARS = 256 * 1024;

export interface JsonView {
  /** json: parsed and pretty-printed; text: not JSON, shown as is; preview: too large to format. */
  kind: 'json' | 'text' | 'preview';
  text: string;
  /** UTF-8 size of the whole value as serialised. */
  bytes: number;
  /** The value is larger than shown: offer the download. */
  truncated: boolean;
}

export interface JsonViewOptions {
  limitBytes?: number;
  previewBytes?: number;
}

export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** The start of `s` of at most about `max` UTF-8 bytes, never splitting a surrogate pair. */
function head(s: string, max: number): string {
  let bytes = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    const w = c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 4 : 3;
    if (bytes + w > max) break;
    bytes += w;
    i += w === 4 ? 2 : 1;
  }
  return s.slice(0, i);
}

/** A GraphQL JSON value (already parsed) or a string that may hold JSON (outputResult, llmInput). */
export function prepareJson(value: unknown, opts: JsonViewOptions = {}): JsonView {
  const limit = opts.limitBytes ?? PRETTY_LIMIT_BYTES;
  const preview = opts.previewBytes ?? PREVIEW_BYTES;
  const raw = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
  const bytes = utf8Length(raw);
  if (bytes > limit) return { kind: 'preview', text: head(raw, preview), bytes, truncated: true };
  if (typeof value !== 'string')
    return { kind: 'json', text: JSON.stringify(value, null, 2), bytes, truncated: false };
  try {
    return {
      kind: 'json',
      text: JSON.stringify(JSON.parse(value), null, 2),
      bytes,
      truncated: false,
    };
  } catch {
    return { kind: 'text', text: value, bytes, truncated: false };
  }
}

export function shouldPrepareInWorker(value: unknown): boolean {
  return typeof value === 'string' && value.length > WORKER_THRESHOLD_CHARS;
}

// C0 (but tab and newline), DEL, C1, bidi embeddings/overrides/isolates and marks, zero-width and
// invisible formatting characters, line/paragraph separators, BOM.
const HIDDEN =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

export function visibleEscapes(text: string): string {
  return text.replace(
    HIDDEN,
    (c) => `\\u{${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}}`,
  );
}
