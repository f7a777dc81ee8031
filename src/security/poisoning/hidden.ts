import { NO_HITS, type Hit } from './patterns.ts';
import { RULES } from './rules.ts';
import { BIDI, INVISIBLE } from './text.ts';

/**
 * The character-level rules on the raw text: hidden characters, terminal escapes, padding, size.
 * These run before anything is stripped: they are about what the reader cannot see.
 */

const TAG_RUN = /[\u{E0000}-\u{E007F}]+/gu;
const INVISIBLE_G = new RegExp(INVISIBLE.source, 'gu');
const BIDI_G = new RegExp(BIDI.source, 'u');
/** NUL has a rule of its own (poisoning.nul); the control rule is about the others. */
const CONTROL_NOT_NUL = /[\u0001-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/u;
const ANSI = /\u001B[[\]()PX^_]|\u009B/u;
const PADDING = /[ \t]{50,}|\n(?:[ \t\r]*\n){7,}/;
/** Emoji sequences use ZWJ (U+200D) and variation selectors; those are not hidden text. */
const PICTOGRAPH = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\u20E3]/u;

export const LONG_TEXT = 8192;

/** Decodes a run of tag characters to the ASCII it spells (U+E0041 → "A"). */
export function decodeTags(run: string): string {
  let out = '';
  for (const ch of run) {
    const cp = (ch.codePointAt(0) ?? 0) - 0xe0000;
    if (cp >= 0x20 && cp < 0x7f) out += String.fromCharCode(cp);
  }
  return out;
}

/** All tag-character runs of a text, decoded and joined: the hidden message. */
export function hiddenTagText(text: string): string {
  return Array.from(text.matchAll(TAG_RUN), (m) => decodeTags(m[0])).join(' ');
}

/** Printable ASCII, tab and newlines only: no hidden character can be in it (the common case). */
export const PLAIN = /^[\t\n\r\x20-\x7E]*$/;
const BLANK_LINES = /\n[ \t\r]*\n|[ \t]{50}/;

export function matchHidden(text: string, field: 'text' | 'name'): readonly Hit[] {
  if (text.length <= LONG_TEXT && PLAIN.test(text) && !BLANK_LINES.test(text)) return NO_HITS;
  const hits: Hit[] = [];
  const tag = TAG_RUN.exec(text);
  TAG_RUN.lastIndex = 0;
  if (tag)
    hits.push({
      meta: RULES.unicodeTags,
      index: tag.index,
      length: tag[0].length,
      note: `the tag characters spell "${hiddenTagText(text).slice(0, 120)}"`,
    });
  const bidi = BIDI_G.exec(text);
  if (bidi) hits.push({ meta: RULES.bidi, index: bidi.index, length: 1 });
  const invisible = firstInvisible(text);
  if (invisible >= 0) hits.push({ meta: RULES.invisible, index: invisible, length: 1 });
  const nul = text.indexOf('\u0000');
  if (nul >= 0) hits.push({ meta: RULES.nul, index: nul, length: 1 });
  const ansi = ANSI.exec(text);
  if (ansi) hits.push({ meta: RULES.ansi, index: ansi.index, length: 2 });
  else {
    const control = CONTROL_NOT_NUL.exec(text);
    if (control) hits.push({ meta: RULES.control, index: control.index, length: 1 });
  }
  if (field === 'text') {
    const pad = PADDING.exec(text);
    if (pad) hits.push({ meta: RULES.padding, index: pad.index, length: pad[0].length });
    if (text.length > LONG_TEXT)
      hits.push({ meta: RULES.longText, index: 0, length: 0, note: `${text.length} characters` });
  }
  return hits;
}

/** Index of the first invisible character that is not part of an emoji sequence, or -1. */
function firstInvisible(text: string): number {
  INVISIBLE_G.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = INVISIBLE_G.exec(text)) !== null) {
    const c = m[0];
    if (
      (c === '\u200D' || c === '\uFE0F' || c === '\uFE0E') &&
      nextToEmoji(text, m.index, c.length)
    )
      continue;
    return m.index;
  }
  return -1;
}

function nextToEmoji(text: string, index: number, len: number): boolean {
  const before = text.slice(Math.max(0, index - 2), index);
  const after = text.slice(index + len, index + len + 2);
  return PICTOGRAPH.test(before) || (text[index] === '\u200D' && PICTOGRAPH.test(after));
}
