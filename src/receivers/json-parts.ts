import secureJson from 'secure-json-parse';

/**
 * A large JSON body parsed off the event loop (src/receivers/json-pool.ts) comes back as JSON text
 * in parts the event loop can parse one per turn: the skeleton (the value with its arrays near the
 * top emptied) and the elements of those arrays in parts of about PART_BYTES. A 10,000-span body
 * (7 MB) is one skeleton of a few bytes and ~55 parts of ~1 ms each, where parsing it whole was
 * one 35-50 ms call (issue 25).
 */
export const PART_BYTES = 128 * 1024;
/** Arrays this close to the root are split: a native batch at 0, OTLP's spans at 5. */
const SPLIT_DEPTH = 6;

/** Exactly what Fastify's default JSON parser refuses: `__proto__` and `constructor.prototype`. */
const PARSE_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;

export interface JsonPart {
  /** Keys from the root to the array whose elements these are. */
  path: (string | number)[];
  /** A JSON array of consecutive elements. */
  json: string;
}

export type ParsedParts =
  | { kind: 'parts'; skeleton: string; parts: JsonPart[] }
  /** Not JSON, or poisoned: Fastify's 400, whatever the reason, as on the event loop. */
  | { kind: 'invalid' }
  /** Not to be written back as text (see writesBack): the event loop parses `text`, as before. */
  | { kind: 'fallback'; text: string };

/** Parses `text` as Fastify's JSON parser does and cuts the value into parts. */
export function parseToParts(text: string): ParsedParts {
  let value: unknown;
  try {
    value = secureJson.parse(text, PARSE_OPTIONS);
  } catch {
    return { kind: 'invalid' };
  }
  // What JSON.stringify would not write back as it was read, or would recurse too deep for: the
  // event loop's own parse and the validators answer it exactly as they always did.
  if (!writesBack(value)) return { kind: 'fallback', text };
  return splitValue(value);
}

/** Deepest nesting written back as text; span payloads may nest 32 levels (MAX_ARGS_DEPTH). */
const MAX_WRITTEN_DEPTH = 1000;

/**
 * Whether JSON.stringify gives text that parses to `value` again: no number JSON cannot write
 * (1e309 parses to Infinity, written as null; -0 is written as 0), and nesting the stack takes.
 */
function writesBack(value: unknown): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v === 'number') {
      if (!Number.isFinite(v) || Object.is(v, -0)) return false;
    } else if (v !== null && typeof v === 'object') {
      if (depth >= MAX_WRITTEN_DEPTH) return false;
      for (const inner of Array.isArray(v) ? v : Object.values(v)) stack.push([inner, depth + 1]);
    }
  }
  return true;
}

function splitValue(value: unknown): ParsedParts {
  const root: Record<string, unknown> = { v: value };
  const parts: JsonPart[] = [];
  const stack: [Record<string | number, unknown>, string | number, (string | number)[]][] = [
    [root, 'v', []],
  ];
  while (stack.length > 0) {
    const [holder, key, path] = stack.pop()!;
    const v = holder[key];
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v) && v.length > 1) {
      parts.push(...arrayParts(v, path));
      holder[key] = [];
      continue;
    }
    if (path.length >= SPLIT_DEPTH) continue;
    for (const [k, inner] of Object.entries(v)) {
      const at = Array.isArray(v) ? Number(k) : k;
      if (inner !== null && typeof inner === 'object')
        stack.push([v as Record<string, unknown>, at, [...path, at]]);
    }
  }
  return { kind: 'parts', skeleton: JSON.stringify(root.v), parts };
}

function arrayParts(items: unknown[], path: (string | number)[]): JsonPart[] {
  const parts: JsonPart[] = [];
  let texts: string[] = [];
  let bytes = 0;
  for (const item of items) {
    const text = JSON.stringify(item) ?? 'null';
    if (texts.length > 0 && bytes + text.length > PART_BYTES) {
      parts.push({ path, json: `[${texts.join(',')}]` });
      texts = [];
      bytes = 0;
    }
    texts.push(text);
    bytes += text.length + 1;
  }
  if (texts.length > 0) parts.push({ path, json: `[${texts.join(',')}]` });
  return parts;
}

/**
 * The value back from its parts, each part parsed after `turn` (the event loop's turn for that
 * many bytes of work, src/ingest/cpu-slices.ts). The texts were written by JSON.stringify from a
 * value that passed the poisoning checks, so plain JSON.parse gives that value again.
 */
export async function assembleParts(
  parsed: { skeleton: string; parts: JsonPart[] },
  turn: (bytes: number) => Promise<void> | undefined,
): Promise<unknown> {
  const root: Record<string, unknown> = { v: JSON.parse(parsed.skeleton) };
  for (const part of parsed.parts) {
    const wait = turn(part.json.length);
    if (wait) await wait;
    const target = arrayAt(root.v, part.path);
    for (const item of JSON.parse(part.json) as unknown[]) target.push(item);
  }
  return root.v;
}

function arrayAt(value: unknown, path: (string | number)[]): unknown[] {
  let at = value;
  for (const key of path) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key))
      throw new Error('JSON part outside its body');
    at = (at as Record<string, unknown>)[key];
  }
  if (!Array.isArray(at)) throw new Error('JSON part outside its body');
  return at;
}
