import type { Span } from '../model/span.ts';

/** The most characters a payload preview holds (docs/api.md#graphql): enough to recognise a call. */
export const PREVIEW_CHARS = 256;

export interface PayloadPreview {
  /** The payload's first PREVIEW_CHARS characters (JSON text for tool arguments). */
  text: string;
  /** True when the payload is longer than the preview. */
  truncated: boolean;
}

/** A size-capped view of a payload for list views, which never need the whole of it. */
export function previewOf(value: unknown): PayloadPreview | null {
  if (value === null || value === undefined) return null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text.length <= PREVIEW_CHARS) return { text, truncated: false };
  // Never end on half a surrogate pair: the preview stays valid UTF-16.
  const cut = /[\uD800-\uDBFF]/.test(text[PREVIEW_CHARS - 1] ?? '')
    ? PREVIEW_CHARS - 1
    : PREVIEW_CHARS;
  return { text: text.slice(0, cut), truncated: true };
}

/** What went in: a tool call's arguments, else the LLM prompt. */
export const inputPreview = (s: Span) => previewOf(s.inputArgs ?? s.llmInput);
/** What came out: a tool call's result, else the LLM completion. */
export const outputPreview = (s: Span) => previewOf(s.outputResult ?? s.llmOutput);
