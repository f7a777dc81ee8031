/**
 * A view's state (filters, time range, selection, tab) in the URL's query string, typed by a small
 * schema of fields: defaults are omitted so shared links stay short, unknown or malformed values
 * fall back to the default, and parameters the schema does not name are kept.
 */

export interface Field<T> {
  default: T;
  /** undefined: the raw value is not acceptable, use the default. */
  parse(raw: string): T | undefined;
  format(value: T): string;
  equals?(a: T, b: T): boolean;
}

export type Schema<S> = { [K in keyof S]: Field<S[K]> };

export const field = {
  string: (def = ''): Field<string> => ({ default: def, parse: (r) => r, format: (v) => v }),
  number: (def: number): Field<number> => ({
    default: def,
    parse: (r) => (r.trim() !== '' && Number.isFinite(Number(r)) ? Number(r) : undefined),
    format: String,
  }),
  boolean: (def = false): Field<boolean> => ({
    default: def,
    parse: (r) =>
      r === '1' || r === 'true' ? true : r === '0' || r === 'false' ? false : undefined,
    format: (v) => (v ? '1' : '0'),
  }),
  oneOf: <T extends string>(values: readonly T[], def: T): Field<T> => ({
    default: def,
    parse: (r) => ((values as readonly string[]).includes(r) ? (r as T) : undefined),
    format: (v) => v,
  }),
  /** Comma-separated; items may not contain commas (ids, names and statuses do not). */
  list: (def: readonly string[] = []): Field<readonly string[]> => ({
    default: def,
    parse: (r) => (r === '' ? [] : r.split(',')),
    format: (v) => v.join(','),
    equals: (a, b) => a.length === b.length && a.every((x, i) => x === b[i]),
  }),
  /** An ISO instant, kept as the string the user chose; null when absent. */
  instant: (): Field<string | null> => ({
    default: null,
    parse: (r) => (Number.isNaN(Date.parse(r)) ? undefined : new Date(r).toISOString()),
    format: (v) => v ?? '',
  }),
};

export function readState<S>(params: URLSearchParams, schema: Schema<S>): S {
  const out = {} as S;
  for (const key of Object.keys(schema) as (keyof S & string)[]) {
    const f = schema[key];
    const raw = params.get(key);
    out[key] = raw === null ? f.default : (f.parse(raw) ?? f.default);
  }
  return out;
}

/** New params: `base`'s entries the schema does not name, then the non-default fields in order. */
export function writeState<S>(
  state: Partial<S>,
  schema: Schema<S>,
  base: URLSearchParams = new URLSearchParams(),
): URLSearchParams {
  const out = new URLSearchParams();
  for (const [k, v] of base) if (!Object.hasOwn(schema, k)) out.append(k, v);
  for (const key of Object.keys(schema) as (keyof S & string)[]) {
    const f = schema[key];
    if (!Object.hasOwn(state, key)) continue;
    const value = state[key] as S[typeof key];
    const same = f.equals ? f.equals(value, f.default) : Object.is(value, f.default);
    if (!same) out.set(key, f.format(value));
  }
  return out;
}
