import { createHash } from 'node:crypto';
import type { ToolSnapshot } from '../model/health.ts';

/**
 * The tool-schema hash of docs/health.md#schema-hash-and-drift: SHA-256 hex of canonical JSON (keys sorted at every depth)
 * of the tools sorted by name, each reduced to name, title, description, inputSchema, outputSchema
 * and annotations. `required` and `enum` are sets, so their order is not drift. Strings are hashed
 * as sent: whitespace and invisible characters are exactly what a poisoned description hides in.
 */
export function hashTools(tools: readonly ToolSnapshot[]): string {
  return createHash('sha256').update(canonicalTools(tools)).digest('hex');
}

/** Canonical JSON of the reduced, sorted tool list (what is hashed and stored as the snapshot). */
export function canonicalTools(tools: readonly ToolSnapshot[]): string {
  const items = tools.map((t) => canonicalJson(reduceTool(t)));
  const names = tools.map((t) => t.name);
  const order = items
    .map((_, i) => i)
    .sort(
      (a, b) => compare(names[a] ?? '', names[b] ?? '') || compare(items[a] ?? '', items[b] ?? ''),
    );
  return `[${order.map((i) => items[i]).join(',')}]`;
}

/** Keeps only the hashed fields of a listed tool (not icons, _meta, execution...). */
export function reduceTool(raw: Record<string, unknown> | ToolSnapshot): ToolSnapshot {
  const t = raw as Record<string, unknown>;
  const out: ToolSnapshot = { name: String(t.name) };
  for (const key of [
    'title',
    'description',
    'inputSchema',
    'outputSchema',
    'annotations',
  ] as const) {
    if (t[key] !== undefined) out[key] = t[key];
  }
  return out;
}

/** Keywords whose values are data, not schema: their arrays keep their order. */
const DATA_KEYWORDS = new Set(['default', 'const', 'examples', 'enum']);
/** Keywords whose array values are sets. */
const SET_KEYWORDS = new Set(['required', 'enum']);
/** Keywords whose value maps names (not keywords) to subschemas. */
const NAME_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
]);

/** JSON with object keys sorted at every depth and `required`/`enum` arrays sorted. */
export function canonicalJson(value: unknown): string {
  return write(value, false);
}

function write(value: unknown, data: boolean, names = false): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => write(v, data)).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(obj).sort(compare)) {
    const v = obj[key];
    if (v === undefined) continue;
    let text: string;
    if (data || names) {
      // Data objects and name maps: keys are not keywords.
      text = write(v, data);
    } else if (SET_KEYWORDS.has(key) && Array.isArray(v)) {
      text = `[${v
        .map((x) => write(x, true))
        .sort(compare)
        .join(',')}]`;
    } else {
      text = write(v, DATA_KEYWORDS.has(key), NAME_MAPS.has(key));
    }
    parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

/** Code-unit order, the same on every platform and locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
