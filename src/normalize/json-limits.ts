import type { ValidationIssue } from '../errors.ts';
import { MAX_ARGS_DEPTH } from './span-checks.ts';

/**
 * Limits on JSON that arrives in a request and is stored (project settings, catalog tags, ...):
 * the nesting limit of span payloads and a size limit. Both are checked by walking the value
 * without recursion, before anything recursive (serialising for the database, the response) sees
 * it: a value nested 10,000 deep parses fine (JSON.parse is iterative) but overflows the stack of
 * JSON.stringify.
 */
export const MAX_STORED_JSON_DEPTH = MAX_ARGS_DEPTH;
/** UTF-8 bytes of one stored JSON value, serialised. */
export const MAX_STORED_JSON_BYTES = 64 * 1024;
/**
 * Any JSON request body outside the span receivers (which judge each span on their own): the
 * stored values' depth plus room for the envelope around them (a GraphQL body's `variables`, an
 * input object). Deeper bodies are refused before any handler runs.
 */
export const MAX_BODY_DEPTH = 64;

/** How deep `root` nests (a scalar is 0, `{}` or `[]` is 1), counting no further than `limit + 1`. */
export function jsonDepth(root: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const inner of Array.isArray(v) ? v : Object.values(v)) {
      if (inner !== null && typeof inner === 'object') stack.push([inner, depth + 1]);
    }
  }
  return deepest;
}

/** The 422 issues for a value to be stored as JSON: too deep, or too large once serialised. */
export function storedJsonIssues(
  value: unknown,
  loc: (string | number)[],
  maxBytes = MAX_STORED_JSON_BYTES,
): ValidationIssue[] {
  if (jsonDepth(value, MAX_STORED_JSON_DEPTH) > MAX_STORED_JSON_DEPTH) {
    return [
      { loc, msg: `Input should nest at most ${MAX_STORED_JSON_DEPTH} levels`, type: 'too_deep' },
    ];
  }
  // Safe now: at most MAX_STORED_JSON_DEPTH levels for JSON.stringify to recurse through.
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? '');
  if (bytes > maxBytes)
    return [
      {
        loc,
        msg: `Input should be at most ${maxBytes} bytes as JSON (got ${bytes})`,
        type: 'too_large',
      },
    ];
  return [];
}
