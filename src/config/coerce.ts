import type { TSchema } from 'typebox';
import type { SettingOptions } from './schema-kit.ts';

/**
 * Walking the schema beside a value: what kind of setting a node is, and turning text (the
 * environment, or YAML strings) into the schema's type before validation. A value that cannot be
 * converted is left as it was, so validation reports it as given.
 */
export type Kind =
  | 'section'
  | 'objects'
  | 'list'
  | 'record'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'string'
  | 'enum'
  | 'union'
  | 'unknown';

export type Node = TSchema & Partial<SettingOptions> & Record<string, unknown>;

export function kind(s: Node): Kind {
  if (Array.isArray(s.enum)) return 'enum';
  if (Array.isArray(s.anyOf)) return 'union';
  if (s.type === 'object') return s.properties ? 'section' : 'record';
  if (s.type === 'array') return (s.items as Node).type === 'object' ? 'objects' : 'list';
  if (s.type === 'integer' || s.type === 'number' || s.type === 'boolean' || s.type === 'string')
    return s.type;
  return 'unknown';
}

/** The sub-schema at a path (property names and array indexes), or undefined. */
export function schemaAt(root: Node, path: readonly (string | number)[]): Node | undefined {
  let s: Node | undefined = root;
  for (const part of path) {
    if (!s) return undefined;
    if (typeof part === 'number') s = s.items as Node | undefined;
    else s = (s.properties as Record<string, Node> | undefined)?.[part];
  }
  return s;
}

export type Path = (string | number)[];

/** `servers[0].name`, `ingest.max_body_bytes`. */
export function pathText(path: readonly (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i ? `.${p}` : p)).join('');
}

const TRUE = ['on', 'true', '1', 'yes'];
const FALSE = ['off', 'false', '0', 'no'];

/**
 * A copy of `value` with nulls (YAML's empty value) dropped and text converted to the schema's
 * types; `raws` records each converted leaf's original value, for messages.
 */
export function coerce(s: Node, value: unknown, path: Path, raws: Map<string, unknown>): unknown {
  if (value === null) return undefined;
  const k = kind(s);
  if (k === 'section' && isMapping(value)) {
    const props = s.properties as Record<string, Node>;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      const c = props[key] ? coerce(props[key], v, [...path, key], raws) : v;
      // An own property even for `__proto__`, so that it is reported as an unknown key.
      if (c !== undefined)
        Object.defineProperty(out, key, {
          value: c,
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    return out;
  }
  if (k === 'objects' && Array.isArray(value))
    return value.map((v, i) => coerce(s.items as Node, v, [...path, i], raws));
  if (k === 'record' && isMapping(value)) {
    const item = (s.patternProperties as Record<string, Node>)['^.*$'];
    if (item?.type !== 'string') return value;
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, scalarText(v)]));
  }
  // An empty value is an unset one, in the file as in the environment.
  if (typeof value === 'string' && value.trim() === '') return undefined;
  raws.set(pathText(path), value);
  return leaf(s, k, value);
}

function leaf(s: Node, k: Kind, value: unknown): unknown {
  if (k === 'list') {
    if (typeof value === 'string') return splitList(value);
    return Array.isArray(value) ? value.map(scalarText) : value;
  }
  if (k === 'union') {
    if (typeof value !== 'string') return value;
    const word = value.trim().toLowerCase();
    const literal = (s.anyOf as Node[]).some((o) => o.const === word);
    return literal ? word : toNumber(value);
  }
  if (k === 'integer' || k === 'number') return toNumber(value);
  if (k === 'string') return scalarText(value);
  if (k === 'enum') return typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (k === 'boolean' && typeof value === 'string') {
    const word = value.trim().toLowerCase();
    return TRUE.includes(word) ? true : FALSE.includes(word) ? false : value;
  }
  return value;
}

export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function toNumber(value: unknown): unknown {
  if (typeof value !== 'string' || value.trim() === '') return value;
  const n = Number(value);
  return Number.isFinite(n) ? n : value;
}

function scalarText(v: unknown): unknown {
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : v;
}

export function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
