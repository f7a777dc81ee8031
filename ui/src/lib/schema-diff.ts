/**
 * A readable diff of two MCP tool lists (the drift tab, docs/ui.md#server-tabs-drift-tools-security-impact):
 * per tool whether it was added, removed or changed, and per input parameter (dotted path, `[]`
 * for array items) its schema before and after. The server classifies the change (DriftChange);
 * this only lays both lists side by side. Schemas are attacker-chosen: the walk stops at
 * MAX_DEPTH levels and MAX_PARAMS parameters.
 */
export interface DiffTool {
  name: string;
  description?: string | null;
  inputSchema?: unknown;
}

export type DiffStatus = 'added' | 'removed' | 'changed' | 'same';

export interface ParamRow {
  path: string;
  status: DiffStatus;
  /** The parameter's own schema (nested properties left out: they are rows of their own), as text. */
  before: string | null;
  after: string | null;
}

export interface ToolDiff {
  name: string;
  status: DiffStatus;
  description: { before: string | null; after: string | null } | null;
  params: ParamRow[];
}

export const MAX_DEPTH = 12;
export const MAX_PARAMS = 500;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Canonical JSON: keys sorted, so the same schema always reads the same. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    isObj(x)
      ? Object.fromEntries(
          Object.keys(x)
            .sort()
            .map((k) => [k, x[k]]),
        )
      : x,
  );
}

/** Every parameter of an input schema, path to its summary (`required` marked). */
export function flattenParams(schema: unknown): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (s: unknown, prefix: string, depth: number) => {
    if (!isObj(s) || depth > MAX_DEPTH) return;
    const required = new Set(Array.isArray(s.required) ? s.required.map(String) : []);
    if (isObj(s.properties)) {
      for (const [name, p] of Object.entries(s.properties)) {
        if (out.size >= MAX_PARAMS) return;
        const path = prefix ? `${prefix}.${name}` : name;
        out.set(path, summary(p, required.has(name)));
        walk(p, path, depth + 1);
      }
    }
    if (isObj(s.items) && prefix) walk(s.items, `${prefix}[]`, depth + 1);
  };
  walk(schema, '', 0);
  return out;
}

function summary(p: unknown, required: boolean): string {
  const own: Obj = isObj(p) ? { ...p } : { schema: p };
  delete own.properties;
  delete own.required;
  if (isObj(own.items)) {
    const { properties: _p, required: _r, ...items } = own.items;
    own.items = items;
  }
  return `${required ? 'required ' : ''}${canonical(own)}`;
}

/** Parameter rows of one tool: removed and changed first, then added, then unchanged. */
export function diffParams(before: unknown, after: unknown): ParamRow[] {
  const a = flattenParams(before);
  const b = flattenParams(after);
  const rows: ParamRow[] = [];
  for (const [path, was] of a) {
    const now = b.get(path) ?? null;
    rows.push({
      path,
      before: was,
      after: now,
      status: now === null ? 'removed' : now === was ? 'same' : 'changed',
    });
  }
  for (const [path, now] of b)
    if (!a.has(path)) rows.push({ path, before: null, after: now, status: 'added' });
  const order: Record<DiffStatus, number> = { removed: 0, changed: 1, added: 2, same: 3 };
  return rows.sort((x, y) => order[x.status] - order[y.status]);
}

/** Tools that differ between the two lists (unchanged ones left out), in name order. */
export function diffToolLists(before: readonly DiffTool[], after: readonly DiffTool[]): ToolDiff[] {
  const a = new Map(before.map((t) => [t.name, t]));
  const b = new Map(after.map((t) => [t.name, t]));
  const names = [...new Set([...a.keys(), ...b.keys()])].sort();
  const out: ToolDiff[] = [];
  for (const name of names) {
    const was = a.get(name);
    const now = b.get(name);
    const params = diffParams(was?.inputSchema, now?.inputSchema);
    const dBefore = was?.description ?? null;
    const dAfter = now?.description ?? null;
    const description = dBefore === dAfter ? null : { before: dBefore, after: dAfter };
    const status: DiffStatus = !was
      ? 'added'
      : !now
        ? 'removed'
        : description ||
            params.some((p) => p.status !== 'same') ||
            canonical(was.inputSchema) !== canonical(now.inputSchema)
          ? 'changed'
          : 'same';
    if (status !== 'same') out.push({ name, status, description, params });
  }
  return out;
}
