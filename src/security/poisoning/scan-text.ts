import { encodedHit, decodeBlobs } from './encoded.ts';
import { hiddenTagText, matchHidden, PLAIN } from './hidden.ts';
import { matchPatterns, NO_HITS, type Hit } from './patterns.ts';
import { RULES } from './rules.ts';
import { visibleText } from './text.ts';

export type { Hit };

/** Hex is a subset of base64's alphabet: a text without a 24-character run has no blob. */
const BLOB_GATE = /[A-Za-z0-9+/]{24}/;

/**
 * What one string of the server's surface trips. `name` strings (tool, prompt and parameter names)
 * get only the character rules: wording rules need sentences. Rules run on the visible text, on
 * the text spelled by tag characters, and on decoded blobs, so hiding a phrase does not hide it.
 */
export function scanText(text: string, field: 'text' | 'name'): readonly Hit[] {
  const plain = PLAIN.test(text);
  // Most names are plain identifiers: nothing to look at, nothing to allocate.
  if (field === 'name') return plain ? NO_HITS : matchHidden(text, field);
  const hidden = matchHidden(text, field);
  const visible = plain ? text : visibleText(text);
  const wording = matchPatterns(visible);
  const tags = plain ? '' : hiddenTagText(text);
  const blobs = BLOB_GATE.test(visible) ? decodeBlobs(visible) : [];
  // The common case (a plain sentence) ends here without building anything.
  if (hidden.length === 0 && wording.length === 0 && tags === '' && blobs.length === 0)
    return NO_HITS;
  const hits = [...hidden];
  for (const h of wording) hits.push(visible === text ? h : { ...h, source: visible });
  // Tag characters already report as critical; what they spell is said in their note.
  if (tags) {
    for (const h of matchPatterns(tags))
      if (!hits.some((x) => x.meta.id === h.meta.id))
        hits.push({ ...h, source: tags, note: 'in the text hidden as tag characters' });
  }
  // One blob finding per text: the first that decodes to poison, else the first readable one.
  const decoded = blobs.map((b) =>
    encodedHit(
      b,
      matchPatterns(b.text).filter((h) => h.meta.kind === 'poisoning'),
    ),
  );
  const strongest = decoded.find((h) => h.meta === RULES.encoded) ?? decoded[0];
  if (strongest) hits.push({ ...strongest, source: visible });
  return dedupe(hits);
}

/** One hit per rule; a path mention gives way to the same path with an instruction around it. */
function dedupe(hits: Hit[]): Hit[] {
  const out = new Map<string, Hit>();
  for (const h of hits) if (!out.has(h.meta.id)) out.set(h.meta.id, h);
  if (out.has(RULES.sensitivePath.id)) out.delete(RULES.sensitivePathMention.id);
  if (out.has(RULES.encoded.id)) out.delete(RULES.encodedText.id);
  return [...out.values()];
}
