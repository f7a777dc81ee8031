/**
 * JSON written straight into bytes, as JSON.stringify would write it: for responses large enough
 * that the objects built only to be stringified, the string, and its UTF-8 copy made as it is sent
 * are most of a request's garbage (docs/benchmarks.md, the session tree's tail). A writer fills
 * the scratch buffer its owner keeps (a service, per app instance: no state in this module) and
 * turns it into its Buffer synchronously, with no await between.
 */

/** The buffer kept between one owner's writers (grown to what a response took, up to MAX_SCRATCH). */
export class JsonScratch {
  private kept: Buffer | null = null;

  /** The kept buffer (or a new one), the writer's until it gives it back. */
  take(): Buffer {
    const s = this.kept ?? Buffer.allocUnsafeSlow(INITIAL_SCRATCH);
    this.kept = null;
    return s;
  }

  /** A writer's buffer back, kept unless it grew past MAX_SCRATCH. */
  give(buf: Buffer): void {
    if (buf.length <= MAX_SCRATCH) this.kept = buf;
  }
}

/** Bytes of a JSON text being written; `bytes()` ends it. */
export class JsonBytes {
  private buf: Buffer;
  private len = 0;

  /** `scratch`: the owner's kept buffer; without one, a buffer of the writer's own. */
  constructor(private readonly scratch: JsonScratch = new JsonScratch()) {
    this.buf = scratch.take();
  }

  /** Room for n more bytes. */
  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  /** Bytes written as they are (a key, punctuation): from `ascii()`. */
  raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }

  /** Text known to need no escaping and to be ASCII (numbers, `null`, fixed words). */
  ascii(s: string): void {
    const n = s.length;
    this.room(n);
    const buf = this.buf;
    let at = this.len;
    for (let i = 0; i < n; i++) buf[at++] = s.charCodeAt(i);
    this.len = at;
  }

  /** A JSON string, escaped as JSON.stringify escapes it. */
  string(s: string): void {
    const n = s.length;
    if (n > 64 && !NEEDS_ESCAPE.test(s)) {
      // Long text with nothing to escape: one native copy beats a loop over its characters.
      this.room(n * 3 + 2);
      this.buf[this.len++] = QUOTE;
      this.len += this.buf.write(s, this.len);
      this.buf[this.len++] = QUOTE;
      return;
    }
    // At most 6 bytes per UTF-16 unit (`\u001f`; UTF-8 takes at most 3), and the quotes.
    this.room(n * 6 + 2);
    const buf = this.buf;
    let at = this.len;
    buf[at++] = QUOTE;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) {
        if (c >= 0x20 && c !== QUOTE && c !== BACKSLASH) buf[at++] = c;
        else {
          buf[at++] = BACKSLASH;
          const short = SHORT_ESCAPES[c];
          if (short !== undefined) buf[at++] = short;
          else at = hex4(buf, at, c);
        }
      } else if (c < 0x800) {
        buf[at++] = 0xc0 | (c >> 6);
        buf[at++] = 0x80 | (c & 0x3f);
      } else if (c < 0xd800 || c > 0xdfff) {
        buf[at++] = 0xe0 | (c >> 12);
        buf[at++] = 0x80 | ((c >> 6) & 0x3f);
        buf[at++] = 0x80 | (c & 0x3f);
      } else {
        const d = i + 1 < n ? s.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          // A surrogate pair: one code point, four bytes.
          const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          buf[at++] = 0xf0 | (cp >> 18);
          buf[at++] = 0x80 | ((cp >> 12) & 0x3f);
          buf[at++] = 0x80 | ((cp >> 6) & 0x3f);
          buf[at++] = 0x80 | (cp & 0x3f);
          i++;
        } else {
          // A lone surrogate: escaped, as JSON.stringify does.
          buf[at++] = BACKSLASH;
          at = hex4(buf, at, c);
        }
      }
    }
    buf[at++] = QUOTE;
    this.len = at;
  }

  /** Any value as JSON.stringify writes it inside an object (undefined as null: callers pass none). */
  value(v: unknown): void {
    if (v === null || v === undefined) this.raw(NULL);
    else if (typeof v === 'string') this.string(v);
    else if (typeof v === 'number') {
      // Counts and tokens: their digits written without a string each.
      if (Number.isInteger(v) && v >= 0 && v < 1e15) this.digits(v);
      else this.ascii(Number.isFinite(v) ? String(v) : 'null');
    } else if (typeof v === 'boolean') this.raw(v ? TRUE : FALSE);
    else this.utf8(JSON.stringify(v) ?? 'null');
  }

  /** A whole number from 0 below 1e15 (String gives these without exponent), as String writes it. */
  private digits(n: number): void {
    let width = 1;
    for (let x = n; x >= 10; x = Math.floor(x / 10)) width++;
    this.room(width);
    const buf = this.buf;
    let at = this.len + width;
    this.len = at;
    let x = n;
    do {
      const q = Math.floor(x / 10);
      buf[--at] = 0x30 + (x - q * 10);
      x = q;
    } while (x > 0);
  }

  /** A JSON list: `[`, then `item(i)` for each i below n with commas between, then `]`. */
  list(n: number, item: (i: number) => void): void {
    this.raw(OPEN_LIST);
    for (let i = 0; i < n; i++) {
      if (i > 0) this.raw(COMMA);
      item(i);
    }
    this.raw(CLOSE_LIST);
  }

  /** Text written as UTF-8 as it is (already JSON). */
  utf8(s: string): void {
    this.room(s.length * 3);
    this.len += this.buf.write(s, this.len);
  }

  /** The text written, in a Buffer of its own; the writer is done. */
  bytes(): Buffer {
    const out = Buffer.allocUnsafeSlow(this.len);
    this.buf.copy(out, 0, 0, this.len);
    this.scratch.give(this.buf);
    this.buf = EMPTY;
    return out;
  }
}

/** Fixed text as bytes, for `raw`. */
export const ascii = (s: string): Uint8Array => Buffer.from(s, 'latin1');

/** The punctuation the writers of objects put around their keys and values, for `raw`. */
export const OPEN_OBJECT = ascii('{');
export const CLOSE_OBJECT = ascii('}');
export const COMMA = ascii(',');
const OPEN_LIST = ascii('[');
const CLOSE_LIST = ascii(']');

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** What JSON.stringify writes otherwise than as it is: `"`, `\`, control characters, lone surrogates (any surrogate is checked). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
const NULL = ascii('null');
/** `\"`, `\\` and the control characters JSON.stringify writes with a letter (the rest as `\u00XX`). */
const SHORT_ESCAPES: (number | undefined)[] = [];
SHORT_ESCAPES[0x08] = 0x62; // b
SHORT_ESCAPES[0x09] = 0x74; // t
SHORT_ESCAPES[0x0a] = 0x6e; // n
SHORT_ESCAPES[0x0c] = 0x66; // f
SHORT_ESCAPES[0x0d] = 0x72; // r
SHORT_ESCAPES[QUOTE] = QUOTE;
SHORT_ESCAPES[BACKSLASH] = BACKSLASH;
const HEX = ascii('0123456789abcdef');
/** `u` and four lowercase hex digits of c, as JSON.stringify escapes. */
function hex4(buf: Buffer, at: number, c: number): number {
  buf[at++] = 0x75;
  buf[at++] = HEX[(c >> 12) & 15] as number;
  buf[at++] = HEX[(c >> 8) & 15] as number;
  buf[at++] = HEX[(c >> 4) & 15] as number;
  buf[at++] = HEX[c & 15] as number;
  return at;
}
const TRUE = ascii('true');
const FALSE = ascii('false');
const EMPTY = Buffer.alloc(0);

const INITIAL_SCRATCH = 256 * 1024;
const MAX_SCRATCH = 4 * 1024 * 1024;
