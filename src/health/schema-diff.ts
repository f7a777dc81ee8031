import { canonicalJson } from './schema-hash.ts';
import type { Classification } from '../model/health.ts';

/**
 * Compares two JSON Schemas of one tool (docs/health.md#schema-hash-and-drift). Input schemas are contravariant: anything
 * that stops an old call from being accepted is BREAKING, widening is COMPATIBLE. Output schemas are
 * covariant, so the same structural change gets the opposite class there (a new enum value in an
 * output is what breaks a consumer). Nested `properties` and `items` are compared with the same
 * rules; their path is dotted (`options.mode`, `rows[].id`).
 */
export type Side = 'input' | 'output';

export interface SchemaChange {
  changeType: string;
  classification: Classification;
  path: string;
  paramType: string | null;
  detail: string | null;
}

type Schema = Record<string, unknown>;
type Direction = 'tighter' | 'looser' | 'added' | 'neutral' | 'breaking-input';

/** The class of a change by its direction and side: the whole variance rule in one place. */
function classOf(direction: Direction, side: Side): Classification {
  switch (direction) {
    case 'tighter':
      return side === 'input' ? 'BREAKING' : 'COMPATIBLE';
    case 'looser':
      return side === 'input' ? 'COMPATIBLE' : 'BREAKING';
    case 'added':
      return side === 'input' ? 'WARNING' : 'COMPATIBLE';
    case 'neutral':
      return 'WARNING';
    case 'breaking-input':
      return 'BREAKING';
  }
}

const UPPER = [
  'maxLength',
  'maximum',
  'exclusiveMaximum',
  'maxItems',
  'maxProperties',
  'maxContains',
];
const LOWER = [
  'minLength',
  'minimum',
  'exclusiveMinimum',
  'minItems',
  'minProperties',
  'minContains',
];
/** Limits that only restrict when present; a change of value cannot be ordered. */
const ADDED_ONLY = ['format', 'multipleOf', 'contentEncoding', 'contentMediaType'];
/** Keywords this differ understands; any other difference is reported as schema_unclassified. */
const KNOWN = new Set([
  'type',
  'properties',
  'required',
  'items',
  'enum',
  'const',
  'description',
  'title',
  'examples',
  'default',
  'additionalProperties',
  'pattern',
  'uniqueItems',
  '$schema',
  ...UPPER,
  ...LOWER,
  ...ADDED_ONLY,
]);

export function diffSchemas(
  before: unknown,
  after: unknown,
  side: Side,
  basePath = '',
): SchemaChange[] {
  const out: SchemaChange[] = [];
  compare(asSchema(before), asSchema(after), basePath, side, out);
  return out;
}

function compare(a: Schema, b: Schema, path: string, side: Side, out: SchemaChange[]): void {
  const emit = (
    changeType: string,
    direction: Direction,
    detail: string | null,
    at = path,
    schema = b,
  ) =>
    out.push({
      changeType,
      classification: classOf(direction, side),
      path: at,
      paramType: typeString(schema),
      detail,
    });

  // Type: a set of JSON types, absent meaning any; integer is a subset of number.
  const ta = types(a);
  const tb = types(b);
  if (!sameTypes(ta, tb)) {
    const detail = `${typeLabel(ta)} -> ${typeLabel(tb)}`;
    if (isSubset(ta, tb)) emit('param_type_widened', 'looser', detail);
    else if (isSubset(tb, ta)) emit('param_type_changed', 'tighter', detail);
    else emit('param_type_changed', side === 'input' ? 'breaking-input' : 'looser', detail);
  }

  if (a.description !== b.description) emit('param_description_changed', 'neutral', 'description');
  if (a.title !== b.title) emit('param_description_changed', 'neutral', 'title');
  if (!same(a.examples, b.examples)) emit('param_description_changed', 'neutral', 'examples');
  if (!same(a.default, b.default)) {
    emit(
      'default_changed',
      'neutral',
      `${canonicalJson(a.default ?? null)} -> ${canonicalJson(b.default ?? null)}`,
    );
  }

  compareEnum(a, b, emit);
  compareConstraints(a, b, emit);
  compareRest(a, b, emit);

  if (mayHave(ta, tb, 'object')) compareProperties(a, b, path, side, out, emit);
  if (mayHave(ta, tb, 'array')) {
    const ia = a.items;
    const ib = b.items;
    if (isSchemaObject(ia) || isSchemaObject(ib)) {
      if (Array.isArray(ia) || Array.isArray(ib)) emit('schema_unclassified', 'neutral', 'items');
      else compare(asSchema(ia), asSchema(ib), `${path}[]`, side, out);
    } else if (!same(ia, ib)) {
      emit('schema_unclassified', 'neutral', 'items');
    }
  }
}

type Emit = (
  changeType: string,
  direction: Direction,
  detail: string | null,
  at?: string,
  schema?: Schema,
) => void;

function compareProperties(
  a: Schema,
  b: Schema,
  path: string,
  side: Side,
  out: SchemaChange[],
  emit: Emit,
): void {
  const pa = asSchemaMap(a.properties);
  const pb = asSchemaMap(b.properties);
  const ra = new Set(asStrings(a.required));
  const rb = new Set(asStrings(b.required));
  const names = [...new Set([...Object.keys(pa), ...Object.keys(pb)])].sort();
  for (const name of names) {
    const at = path ? `${path}.${name}` : name;
    const before = pa[name];
    const after = pb[name];
    if (before === undefined && after !== undefined) {
      if (side === 'output')
        out.push({
          changeType: 'output_field_added',
          classification: 'COMPATIBLE',
          path: at,
          paramType: typeString(asSchema(after)),
          detail: null,
        });
      else if (rb.has(name))
        emit('required_param_added', 'breaking-input', null, at, asSchema(after));
      else emit('optional_param_added', 'looser', null, at, asSchema(after));
    } else if (before !== undefined && after === undefined) {
      if (side === 'output')
        out.push({
          changeType: 'output_field_removed',
          classification: 'BREAKING',
          path: at,
          paramType: typeString(asSchema(before)),
          detail: null,
        });
      else {
        // Removing a parameter breaks old calls only when the schema now rejects unknown ones.
        const closed = b.additionalProperties === false;
        out.push({
          changeType: 'param_removed',
          classification: closed ? 'BREAKING' : 'WARNING',
          path: at,
          paramType: typeString(asSchema(before)),
          detail: closed ? 'additionalProperties is false' : null,
        });
      }
    } else if (before !== undefined && after !== undefined) {
      if (!ra.has(name) && rb.has(name))
        emit('param_became_required', 'tighter', null, at, asSchema(after));
      if (ra.has(name) && !rb.has(name))
        emit('param_became_optional', 'looser', null, at, asSchema(after));
      compare(asSchema(before), asSchema(after), at, side, out);
    }
  }
  // `required` naming a property that is not declared still restricts calls.
  for (const name of [...rb].filter((n) => !ra.has(n) && !(n in pa) && !(n in pb)).sort()) {
    emit(
      'param_became_required',
      'tighter',
      'required but not declared',
      path ? `${path}.${name}` : name,
    );
  }
  for (const name of [...ra].filter((n) => !rb.has(n) && !(n in pa) && !(n in pb)).sort()) {
    emit(
      'param_became_optional',
      'looser',
      'was required but not declared',
      path ? `${path}.${name}` : name,
    );
  }
}

function compareEnum(a: Schema, b: Schema, emit: Emit): void {
  const ea = Array.isArray(a.enum) ? a.enum.map(canonicalJson) : null;
  const eb = Array.isArray(b.enum) ? b.enum.map(canonicalJson) : null;
  if (ea && eb) {
    for (const v of ea.filter((x) => !eb.includes(x)).sort())
      emit('enum_value_removed', 'tighter', `value ${v}`);
    for (const v of eb.filter((x) => !ea.includes(x)).sort())
      emit('enum_value_added', 'looser', `value ${v}`);
  } else if (!ea && eb) {
    emit('constraint_tightened', 'tighter', 'enum added');
  } else if (ea && !eb) {
    emit('constraint_relaxed', 'looser', 'enum removed');
  }
  const ca = canonicalJson(a.const);
  const cb = canonicalJson(b.const);
  if (!same(a.const, b.const)) {
    if (a.const === undefined) emit('constraint_tightened', 'tighter', `const ${cb} added`);
    else if (b.const === undefined) emit('constraint_relaxed', 'looser', 'const removed');
    else emit('constraint_tightened', 'tighter', `const ${ca} -> ${cb}`);
  }
}

function compareConstraints(a: Schema, b: Schema, emit: Emit): void {
  const bound = (key: string, upper: boolean) => {
    const x = a[key];
    const y = b[key];
    if (x === y) return;
    if (typeof x !== 'number' && typeof y === 'number')
      emit('constraint_added', 'added', `${key} ${y}`);
    else if (typeof x === 'number' && typeof y !== 'number')
      emit('constraint_relaxed', 'looser', `${key} ${x} removed`);
    else if (typeof x === 'number' && typeof y === 'number') {
      const tighter = upper ? y < x : y > x;
      emit(
        tighter ? 'constraint_tightened' : 'constraint_relaxed',
        tighter ? 'tighter' : 'looser',
        `${key} ${x} -> ${y}`,
      );
    } else if (!same(x, y)) emit('schema_unclassified', 'neutral', key);
  };
  for (const key of UPPER) bound(key, true);
  for (const key of LOWER) bound(key, false);

  if (a.pattern !== b.pattern) {
    if (a.pattern === undefined)
      emit('constraint_tightened', 'tighter', `pattern ${String(b.pattern)} added`);
    else if (b.pattern === undefined) emit('constraint_relaxed', 'looser', 'pattern removed');
    else
      emit(
        'schema_unclassified',
        'neutral',
        `pattern ${String(a.pattern)} -> ${String(b.pattern)}`,
      );
  }
  for (const key of ADDED_ONLY) {
    if (same(a[key], b[key])) continue;
    if (a[key] === undefined) emit('constraint_added', 'added', `${key} ${canonicalJson(b[key])}`);
    else if (b[key] === undefined) emit('constraint_relaxed', 'looser', `${key} removed`);
    else
      emit(
        'schema_unclassified',
        'neutral',
        `${key} ${canonicalJson(a[key])} -> ${canonicalJson(b[key])}`,
      );
  }
  if (a.uniqueItems !== b.uniqueItems) {
    if (b.uniqueItems === true) emit('constraint_added', 'added', 'uniqueItems');
    else if (a.uniqueItems === true) emit('constraint_relaxed', 'looser', 'uniqueItems removed');
  }
  const xa = a.additionalProperties;
  const xb = b.additionalProperties;
  if (!same(xa, xb)) {
    if (xb === false) emit('constraint_tightened', 'tighter', 'additionalProperties false');
    else if (xa === false) emit('constraint_relaxed', 'looser', 'additionalProperties allowed');
    else if (!(xa === undefined && xb === true) && !(xa === true && xb === undefined))
      emit('schema_unclassified', 'neutral', 'additionalProperties');
  }
}

/** Everything outside the understood keywords (anyOf, $ref, if/then...): changed is all we can say. */
function compareRest(a: Schema, b: Schema, emit: Emit): void {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((k) => !KNOWN.has(k))
    .sort();
  const changed = keys.filter((k) => !same(a[k], b[k]));
  if (changed.length > 0) emit('schema_unclassified', 'neutral', changed.join(', '));
  if (!same(a.$schema, b.$schema)) emit('schema_unclassified', 'neutral', '$schema');
}

/** Equal as JSON values; absent differs from null. */
function same(x: unknown, y: unknown): boolean {
  if (x === undefined || y === undefined) return x === y;
  return canonicalJson(x) === canonicalJson(y);
}

function types(s: Schema): Set<string> | null {
  if (typeof s.type === 'string') return new Set([s.type]);
  if (Array.isArray(s.type)) return new Set(s.type.map(String));
  return null;
}

function sameTypes(a: Set<string> | null, b: Set<string> | null): boolean {
  if (a === null || b === null) return a === b;
  return a.size === b.size && [...a].every((t) => b.has(t));
}

/** Every value of type set `a` is also valid under `b` (null = any type). */
function isSubset(a: Set<string> | null, b: Set<string> | null): boolean {
  if (b === null) return true;
  if (a === null) return false;
  return [...a].every((t) => b.has(t) || (t === 'integer' && b.has('number')));
}

function mayHave(a: Set<string> | null, b: Set<string> | null, t: string): boolean {
  return (a === null || a.has(t)) && (b === null || b.has(t));
}

function typeLabel(t: Set<string> | null): string {
  return t === null ? 'any' : [...t].sort().join('|');
}

export function typeString(s: Schema): string | null {
  const t = types(s);
  return t === null ? null : [...t].sort().join('|');
}

function isSchemaObject(v: unknown): boolean {
  return v !== undefined && v !== null && typeof v === 'object';
}

function asSchema(v: unknown): Schema {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Schema) : {};
}

function asSchemaMap(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function asStrings(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [];
}
