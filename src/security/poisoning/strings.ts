import type { Observation } from '../types.ts';

/**
 * Every string of a server's surface, with where it is (types.ts location form): tool names,
 * titles, descriptions, annotations' title, every string at any depth of the input and output
 * schemas (property names, descriptions, defaults, enum values, examples, `$defs`), server
 * instructions, prompts and their arguments, resources.
 */
export interface Place {
  location: string;
  text: string;
  /** Names get only the character rules. */
  field: 'text' | 'name';
  toolName: string | null;
  /** Findings are capped per group (a tool, a prompt, a resource, the instructions). */
  group: string;
  /** Input-schema property names: the exfiltration-channel rule looks at these. */
  param: boolean;
}

/** Schema keywords whose values are machine syntax, not text a model reads. */
const SKIP = new Set([
  'type',
  '$schema',
  '$id',
  '$ref',
  'format',
  'pattern',
  'required',
  'contentEncoding',
  'contentMediaType',
]);
/** Keywords whose value maps names to subschemas: the names are strings of the surface too. */
const NAME_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
]);
/** Bounds the recursion only: a hostile 100-deep schema is still read to the bottom, where text hides best. */
const MAX_DEPTH = 256;

export function collectPlaces(obs: Observation): Place[] {
  const out: Place[] = [];
  if (typeof obs.instructions === 'string')
    out.push({
      location: 'instructions',
      text: obs.instructions,
      field: 'text',
      toolName: null,
      group: 'instructions',
      param: false,
    });
  for (const t of obs.tools) collectTool(t, out);
  for (const p of obs.prompts ?? []) {
    const name = String(p.name);
    const base = `prompts.${name}`;
    push(out, base, p.name, 'name', null, base);
    for (const key of ['title', 'description'] as const)
      push(out, `${base}.${key}`, p[key], 'text', null, base);
    const args = Array.isArray(p.arguments) ? (p.arguments as unknown[]) : [];
    args.forEach((a, i) => {
      if (!isObject(a)) return;
      const where = `${base}.arguments.${typeof a.name === 'string' ? a.name : String(i)}`;
      push(out, where, a.name, 'name', null, base);
      push(out, `${where}.description`, a.description, 'text', null, base);
    });
  }
  for (const r of obs.resources ?? []) {
    const base = `resources.${String(r.uri ?? r.name)}`;
    push(out, `${base}.uri`, r.uri, 'text', null, base);
    for (const key of ['name', 'title', 'description'] as const)
      push(out, `${base}.${key}`, r[key], key === 'name' ? 'name' : 'text', null, base);
  }
  return out;
}

/** The places of one tool (also used by the rug-pull check on a pinned definition). */
export function collectTool(t: Record<string, unknown>, out: Place[] = []): Place[] {
  const name = String(t.name);
  const base = `tools.${name}`;
  push(out, `${base}.name`, t.name, 'name', name, base);
  push(out, `${base}.title`, t.title, 'text', name, base);
  push(out, `${base}.description`, t.description, 'text', name, base);
  if (isObject(t.annotations))
    push(out, `${base}.annotations.title`, t.annotations.title, 'text', name, base);
  for (const key of ['inputSchema', 'outputSchema'] as const)
    walk(t[key], `${base}.${key}`, out, name, base, key === 'inputSchema', 0);
  return out;
}

function walk(
  node: unknown,
  path: string,
  out: Place[],
  tool: string,
  group: string,
  input: boolean,
  depth: number,
): void {
  if (depth > MAX_DEPTH) return;
  if (typeof node === 'string') {
    out.push({ location: path, text: node, field: 'text', toolName: tool, group, param: false });
  } else if (Array.isArray(node)) {
    node.forEach((v, i) => walk(v, `${path}[${i}]`, out, tool, group, input, depth + 1));
  } else if (isObject(node)) {
    // for...in, not Object.entries: a 10,000-property surface should not allocate a pair per key.
    for (const key in node) {
      if (SKIP.has(key)) continue;
      const value = node[key];
      if (NAME_MAPS.has(key) && isObject(value)) {
        for (const name in value) {
          const where = `${path}.${key}.${name}`;
          out.push({
            location: where,
            text: name,
            field: 'name',
            toolName: tool,
            group,
            param: input && key === 'properties',
          });
          walk(value[name], where, out, tool, group, input, depth + 1);
        }
      } else {
        walk(value, `${path}.${key}`, out, tool, group, input, depth + 1);
      }
    }
  }
}

function push(
  out: Place[],
  location: string,
  value: unknown,
  field: 'text' | 'name',
  toolName: string | null,
  group: string,
): void {
  if (typeof value === 'string' && value !== '')
    out.push({ location, text: value, field, toolName, group, param: false });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
