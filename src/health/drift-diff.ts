import { canonicalJson } from './schema-hash.ts';
import { diffSchemas, type SchemaChange } from './schema-diff.ts';
import type { Classification, DriftChange, ToolSnapshot } from '../model/health.ts';

/**
 * The drift taxonomy of docs/health.md#schema-hash-and-drift over two tool lists (and the server instructions): what a
 * tool promises its callers (input schema), what it gives back (output schema), and what the model
 * is told (descriptions, defaults, annotations, instructions).
 */
export function diffTools(
  before: readonly ToolSnapshot[],
  after: readonly ToolSnapshot[],
  instructions: { before: string | null; after: string | null } = { before: null, after: null },
): DriftChange[] {
  const changes: DriftChange[] = [];
  if ((instructions.before ?? null) !== (instructions.after ?? null)) {
    changes.push(
      change('instructions_changed', 'WARNING', null, null, null, 'server instructions'),
    );
  }
  const old = byName(before);
  const cur = byName(after);
  for (const name of [...new Set([...old.keys(), ...cur.keys()])].sort()) {
    const a = old.get(name);
    const b = cur.get(name);
    if (!a && b) changes.push(change('tool_added', 'COMPATIBLE', name));
    else if (a && !b) changes.push(change('tool_removed', 'BREAKING', name));
    else if (a && b) changes.push(...diffTool(a, b));
  }
  return changes;
}

/** A drift event's class is that of its most severe change. */
export function mostSevere(changes: readonly DriftChange[]): Classification {
  if (changes.some((c) => c.classification === 'BREAKING')) return 'BREAKING';
  if (changes.some((c) => c.classification === 'WARNING')) return 'WARNING';
  return 'COMPATIBLE';
}

function diffTool(a: ToolSnapshot, b: ToolSnapshot): DriftChange[] {
  const name = b.name;
  const out: DriftChange[] = [];
  if (a.description !== b.description)
    out.push(change('description_changed', 'WARNING', name, null, null, 'description'));
  if (a.title !== b.title)
    out.push(change('description_changed', 'WARNING', name, null, null, 'title'));
  out.push(...diffAnnotations(name, a.annotations, b.annotations));
  out.push(...diffSchemas(a.inputSchema, b.inputSchema, 'input').map((c) => fromSchema(name, c)));
  if (a.outputSchema === undefined && b.outputSchema !== undefined)
    out.push(change('output_schema_added', 'COMPATIBLE', name));
  else if (a.outputSchema !== undefined && b.outputSchema === undefined)
    out.push(change('output_schema_removed', 'BREAKING', name));
  else if (a.outputSchema !== undefined) {
    out.push(
      ...diffSchemas(a.outputSchema, b.outputSchema, 'output', 'outputSchema').map((c) =>
        fromSchema(name, c),
      ),
    );
  }
  // Something hashed changed that none of the rules above name (say, an explicit default hint).
  if (out.length === 0 && canonicalJson(a) !== canonicalJson(b))
    out.push(change('schema_unclassified', 'WARNING', name));
  return out;
}

/**
 * Hints compared by their effective value (MCP defaults: readOnly false, destructive true,
 * idempotent false, openWorld true). Escalated = the tool may now do more harm than callers assumed.
 */
const HINTS: { key: string; fallback: boolean; riskyWhen: boolean }[] = [
  { key: 'readOnlyHint', fallback: false, riskyWhen: false },
  { key: 'destructiveHint', fallback: true, riskyWhen: true },
  { key: 'idempotentHint', fallback: false, riskyWhen: false },
  { key: 'openWorldHint', fallback: true, riskyWhen: true },
];

function diffAnnotations(tool: string, a: unknown, b: unknown): DriftChange[] {
  const x = asObject(a);
  const y = asObject(b);
  const out: DriftChange[] = [];
  if (x.title !== y.title)
    out.push(change('description_changed', 'WARNING', tool, null, null, 'annotations.title'));
  for (const h of HINTS) {
    const before = typeof x[h.key] === 'boolean' ? (x[h.key] as boolean) : h.fallback;
    const after = typeof y[h.key] === 'boolean' ? (y[h.key] as boolean) : h.fallback;
    if (before === after) continue;
    const escalated = after === h.riskyWhen;
    out.push(
      change(
        escalated ? 'annotations_escalated' : 'annotations_relaxed',
        escalated ? 'WARNING' : 'COMPATIBLE',
        tool,
        null,
        null,
        `${h.key} ${before} -> ${after}`,
      ),
    );
  }
  return out;
}

function fromSchema(tool: string, c: SchemaChange): DriftChange {
  return change(
    c.changeType,
    c.classification,
    tool,
    c.path === '' ? null : c.path,
    c.paramType,
    c.detail,
  );
}

function change(
  changeType: string,
  classification: Classification,
  tool: string | null,
  param: string | null = null,
  paramType: string | null = null,
  detail: string | null = null,
): DriftChange {
  return {
    change_type: changeType,
    classification,
    tool_name: tool,
    param_name: param,
    param_type: paramType,
    detail,
  };
}

function byName(tools: readonly ToolSnapshot[]): Map<string, ToolSnapshot> {
  return new Map(tools.map((t) => [t.name, t]));
}

function asObject(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
