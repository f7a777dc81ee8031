import { Ajv, type ErrorObject } from 'ajv';
import { isMapping, kind, pathText, schemaAt, type Node, type Path } from './coerce.ts';
import { ConfigSchema, type FileConfig } from './schema.ts';

/**
 * Validation against the schema with every problem at once, each naming its key path and, when
 * the value came from the environment, the variable. Defaults are filled in on the way (ajv's
 * useDefaults), so a valid result is a complete FileConfig.
 */
// validateSchema off: the schema is ours and fixed; checking it against JSON Schema's meta-schema
// compiled that meta-schema on every start (a tenth of a second or more; docs/benchmarks.md).
const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, validateSchema: false });
const check = ajv.compile<FileConfig>(ConfigSchema);
const ROOT = ConfigSchema as unknown as Node;

export interface Sources {
  /** Variable that gave a setting, by key path. */
  names: Map<string, string>;
  /** Each leaf's value before conversion, by key path. */
  raws: Map<string, unknown>;
  /** Where the file's problems are (its path, or `config`). */
  file: string;
}

/**
 * Fills defaults into `value` and returns its problems. The values at fault are then dropped (an
 * unknown key, a bad setting back to its default, a bad servers[] entry left out) so that the
 * rules between settings can still be checked and reported with the rest: `usable` says whether
 * `value` is then a FileConfig.
 */
export function validate(
  value: Record<string, unknown>,
  src: Sources,
): { problems: string[]; usable: boolean } {
  const problems: string[] = [];
  const seen = new Set<string>();
  // Dropping a value can uncover another problem (a default checked against its section): a
  // second round reports it too.
  for (let round = 0; round < 2 && !check(value); round++) {
    const drop: Path[] = [];
    for (const e of check.errors ?? []) {
      const p = problem(e, src);
      if (!p) continue;
      drop.push(p.at);
      if (seen.has(p.key)) continue;
      seen.add(p.key);
      problems.push(p.text);
    }
    dropAll(value, drop);
  }
  const usable = check(value);
  if (!usable && problems.length === 0) problems.push(`${src.file}: not a valid configuration`);
  return { problems, usable };
}

/** Deletes each path's value; array items are removed after, so indexes stay right meanwhile. */
function dropAll(value: Record<string, unknown>, paths: Path[]): void {
  const gone = new Set<unknown>();
  const arrays = new Set<unknown[]>();
  for (const path of paths) {
    if (path.length === 0) continue;
    let parent: unknown = value;
    for (const part of path.slice(0, -1)) parent = (parent as Record<string, unknown>)?.[part];
    const last = path[path.length - 1]!;
    if (Array.isArray(parent) && typeof last === 'number') {
      gone.add(parent[last]);
      arrays.add(parent);
    } else if (isMapping(parent)) delete parent[last as string];
  }
  for (const a of arrays) {
    const kept = a.filter((item) => !gone.has(item));
    a.splice(0, a.length, ...kept);
  }
}

interface Problem {
  key: string;
  text: string;
  /** What to drop. */
  at: Path;
}

function problem(e: ErrorObject, src: Sources): Problem | undefined {
  const path: Path = e.instancePath
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p.replace(/~1/g, '/').replace(/~0/g, '~')));
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') {
    const extra = String(params.additionalProperty);
    const known = Object.keys((schemaAt(ROOT, path)?.properties as object) ?? {});
    const where = path.length
      ? `keys of ${pathText(path).replace(/\[\d+\]/g, '[]')}`
      : 'top-level keys';
    const text = `${src.file}: unknown key ${pathText([...path, extra])} (known ${where}: ${known.join(', ')})`;
    return { key: text, text, at: [...path, extra] };
  }
  if (e.keyword === 'required') {
    const at = pathText([...path, String(params.missingProperty)]);
    return { key: at, text: `${at} is required`, at: path };
  }
  // A bad item of a list is the list's problem; a bad value in a map, the map's.
  let at = path;
  const listAt = path.findIndex((_, i) => {
    const n = schemaAt(ROOT, path.slice(0, i + 1));
    return n !== undefined && kind(n) === 'list';
  });
  if (listAt >= 0) at = path.slice(0, listAt + 1);
  while (at.length > 0 && schemaAt(ROOT, at) === undefined) at = at.slice(0, -1);
  const s = schemaAt(ROOT, at)!;
  const key = pathText(at);
  const env = src.names.get(key);
  const label = env ? `${env} (${key})` : key;
  const k = kind(s);
  // A bad field of a servers[] entry or cost rule leaves the whole entry out.
  const entry = at.findLastIndex((p) => typeof p === 'number');
  const drop = entry >= 0 ? at.slice(0, entry + 1) : at;
  if (k === 'section' || k === 'record' || k === 'objects')
    return { key, text: `${label} must be ${expectation(s)}`, at: drop };
  if (s.secret) return { key, text: `${label} must be ${expectation(s)}`, at: drop };
  const raw = src.raws.get(key);
  return { key, text: `${label} must be ${expectation(s)} (got ${JSON.stringify(raw)})`, at: drop };
}

/** What a valid value of a setting looks like, in words. */
export function expectation(s: Node): string {
  if (s.expect) return s.expect;
  const range = (what: string) => {
    const { minimum: min, maximum: max } = s as { minimum?: number; maximum?: number };
    if (min !== undefined && max !== undefined) return `${what} from ${min} to ${max}`;
    return min !== undefined ? `${what}, ${min} or more` : what;
  };
  switch (kind(s)) {
    case 'integer':
      return range('an integer');
    case 'number':
      return range('a number');
    case 'boolean':
      return 'true or false';
    case 'enum':
      return `one of ${(s.enum as string[]).join(', ')}`;
    case 'list':
      return 'a list of strings (or one comma-separated string)';
    case 'section':
      return 'a mapping (key: value lines under it)';
    case 'record': {
      const item = (s.patternProperties as Record<string, Node>)['^.*$'];
      return item?.type === 'string' ? 'a mapping of names to strings' : 'a mapping';
    }
    case 'objects':
      return 'a list';
    default:
      return 'a non-empty string';
  }
}
