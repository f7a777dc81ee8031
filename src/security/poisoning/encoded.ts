import type { Hit } from './patterns.ts';
import { RULES } from './rules.ts';

/**
 * Base64 and hex blobs: decoded and, when they read as text, handed back so the caller runs every
 * rule on what they say. Binary (hashes, ids, images) does not decode to text and is ignored.
 */

const BASE64 = /[A-Za-z0-9+/]{24,}={0,2}/g;
const HEX = /[0-9a-fA-F]{32,}/g;
/** Enough for any instruction; a larger blob is decoded only up to here. */
const MAX_BLOB = 16_384;
const MAX_BLOBS = 8;

export interface Decoded {
  index: number;
  length: number;
  text: string;
}

/** Blobs of the text that decode to readable text (at most eight per text). */
export function decodeBlobs(text: string): Decoded[] {
  const out: Decoded[] = [];
  for (const [re, decode] of [
    [BASE64, (s: string) => Buffer.from(s.slice(0, MAX_BLOB), 'base64').toString('utf8')],
    [
      HEX,
      (s: string) =>
        Buffer.from(
          s.slice(0, MAX_BLOB - (MAX_BLOB % 2)).slice(0, s.length - (s.length % 2)),
          'hex',
        ).toString('utf8'),
    ],
  ] as const) {
    re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null && out.length < MAX_BLOBS) {
      const decoded = decode(m[0]);
      if (readable(decoded)) out.push({ index: m.index, length: m[0].length, text: decoded });
    }
  }
  return out;
}

/** Mostly printable ASCII with words in it: what an instruction looks like once decoded. */
function readable(s: string): boolean {
  if (s.length < 12) return false;
  let printable = 0;
  let spaces = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || c === 9 || c === 10 || c === 13) printable++;
    if (c === 0x20) spaces++;
  }
  return printable / s.length >= 0.95 && spaces >= 1;
}

/** The encoded hits for one blob: `encoded` when its text trips a rule, else `encoded-text`. */
export function encodedHit(blob: Decoded, inner: Hit[]): Hit {
  const shown = blob.text.slice(0, 120);
  if (inner.length > 0) {
    const rules = [...new Set(inner.map((h) => h.meta.id))].join(', ');
    return {
      meta: RULES.encoded,
      index: blob.index,
      length: blob.length,
      note: `decoded: "${shown}" (trips ${rules})`,
    };
  }
  return {
    meta: RULES.encodedText,
    index: blob.index,
    length: blob.length,
    note: `decoded: "${shown}"`,
  };
}
