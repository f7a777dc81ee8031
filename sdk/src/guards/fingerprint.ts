/**
 * The identity of a call for loop detection (spec §2.9): the tool name and its arguments with every
 * non-integer number rounded to 6 decimals and object keys sorted, so `{a: 1.0000001, b: 2}` and
 * `{b: 2, a: 1.0000002}` are the same call.
 *
 * A hand-written walk rather than JSON.stringify with a replacer: it sorts keys without building
 * copies, survives cycles and BigInt (JSON.stringify throws on both) and costs about a microsecond
 * for typical small MCP arguments. Long results are hashed so the loop history stays small.
 */
import { createHash } from 'node:crypto';

/** Deeper nesting than this is cut off (and stays deterministic); guards the stack. */
const MAX_DEPTH = 64;
/** Fingerprints longer than this are replaced by their SHA-1 (kept per call in the history). */
const MAX_PLAIN_LENGTH = 256;

export function roundFloat(n: number): number {
  if (Number.isInteger(n) || !Number.isFinite(n)) return n;
  const r = Math.round(n * 1e6) / 1e6;
  // Beyond ~9e9 the scaled value loses precision and the number has no 6th decimal to round anyway.
  return Number.isFinite(r) ? r : n;
}

function write(value: unknown, out: string[], ancestors: unknown[]): void {
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'number':
      out.push(String(roundFloat(value)));
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'bigint':
      out.push(`${value}n`);
      return;
    case 'undefined':
      out.push('undefined');
      return;
    case 'symbol':
    case 'function':
      // Not data: two calls differing only here still count as the same call.
      out.push(`<${typeof value}>`);
      return;
  }
  if (value === null) {
    out.push('null');
    return;
  }
  if (ancestors.includes(value)) {
    out.push('<cycle>');
    return;
  }
  if (ancestors.length >= MAX_DEPTH) {
    out.push('<deep>');
    return;
  }
  if (value instanceof Date) {
    out.push(Number.isNaN(value.getTime()) ? 'Date(NaN)' : `Date(${value.toISOString()})`);
    return;
  }
  ancestors.push(value);
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      write(value[i], out, ancestors);
    }
    out.push(']');
  } else {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).sort();
    out.push('{');
    let first = true;
    for (const key of keys) {
      const v = obj[key];
      // As in JSON: an absent key and a key set to undefined are the same argument.
      if (v === undefined) continue;
      if (!first) out.push(',');
      first = false;
      out.push(JSON.stringify(key), ':');
      write(v, out, ancestors);
    }
    out.push('}');
  }
  ancestors.pop();
}

/** A compact stable string for `toolName(args)`; never throws. */
export function callFingerprint(toolName: string, args: unknown): string {
  const out: string[] = [toolName, '('];
  try {
    write(args, out, []);
  } catch {
    // A throwing getter or proxy: every such call of this tool counts as the same call.
    out.length = 2;
    out.push('<unreadable>');
  }
  out.push(')');
  const plain = out.join('');
  if (plain.length <= MAX_PLAIN_LENGTH) return plain;
  return `${toolName}#${createHash('sha1').update(plain).digest('base64')}`;
}
