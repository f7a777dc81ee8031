/**
 * Text helpers shared by the poisoning rules: what counts as hidden, how an excerpt is shown.
 * Evidence never carries a hidden character raw: a terminal or a browser would act on it.
 */

/** Characters a reader does not see (zero-width, joiners, BOM, soft hyphen, fillers, selectors). */
export const INVISIBLE =
  /[\u00AD\u034F\u115F\u1160\u180E\u200B-\u200F\u2060-\u2064\u3164\uFE00-\uFE0F\uFEFF\u{E0100}-\u{E01EF}]/u;
/** Bidi embeddings, overrides and isolates: reorder what is shown ("trojan source"). */
export const BIDI = /[\u202A-\u202E\u2066-\u2069]/u;
/** Unicode tag characters: invisible copies of ASCII ("ASCII smuggling"). */
export const TAGS = /[\u{E0000}-\u{E007F}]/u;
/** C0 controls other than tab, newline and carriage return; DEL; C1 controls. */
export const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/u;

const ANY_HIDDEN = new RegExp(
  `${INVISIBLE.source}|${BIDI.source}|${TAGS.source}|${CONTROL.source}`,
  'gu',
);
const ANY_HIDDEN_TEST = new RegExp(ANY_HIDDEN.source, 'u');

/** The text as a reader sees it: hidden characters removed, so `ig\u200Bnore` still reads `ignore`. */
export function visibleText(text: string): string {
  return ANY_HIDDEN_TEST.test(text) ? text.replace(ANY_HIDDEN, '') : text;
}

/** Every hidden character (invisible, bidi, tag, control) written as `\u{XXXX}`; visible text is left as it is. */
export function escapeHidden(text: string): string {
  return text.replace(
    ANY_HIDDEN,
    (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`,
  );
}

/**
 * Server text as one line for a terminal or a report (CLI tables, stderr, SARIF): escapeHidden,
 * and line breaks shown as `\n`/`\r`, so a name cannot draw over or forge the lines around it.
 */
export function escapeLine(text: string): string {
  return escapeHidden(text).replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}

/**
 * JSON text (JSON.stringify's output) with every hidden character written as a JSON `\uXXXX`
 * escape: JSON.stringify leaves DEL, C1 controls, bidi, invisible and tag characters raw, and a
 * terminal acts on them. The escape is lossless: parsing gives the same strings back.
 */
export function escapeHiddenJson(json: string): string {
  return json.replace(ANY_HIDDEN, (c) => {
    let out = '';
    for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}

/** At most `max` characters around [index, index+length), hidden characters escaped, newlines shown as `\n`. */
export function excerpt(text: string, index: number, length: number, max = 200): string {
  const room = Math.max(0, max - Math.min(length, max));
  let start = Math.max(0, index - Math.floor(room / 4));
  let end = Math.min(text.length, start + max);
  // Never split a surrogate pair: half a tag character would escape the escaping.
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start--;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end++;
  const raw = text.slice(start, end);
  let out = escapeHidden(raw).replace(/\r?\n/g, '\\n');
  if (start > 0) out = `…${out}`;
  if (end < text.length) out = `${out}…`;
  // Escaping lengthens the text; cut again so the stored excerpt keeps its bound.
  if (out.length <= max) return out;
  const cut = isHighSurrogate(out.charCodeAt(max - 2)) ? max - 2 : max - 1;
  return `${out.slice(0, cut)}…`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
