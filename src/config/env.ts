import { kind, pathText, type Node } from './coerce.ts';
import { ConfigSchema } from './schema.ts';

export type Env = Record<string, string | undefined>;

/** A setting the environment can set: every scalar and list, at the top level or in a section. */
export interface EnvSetting {
  path: string[];
  /** `SPYGLASS_<SECTION>_<KEY>`, or `SPYGLASS_<KEY>` at the top level. */
  name: string;
  /** Older names that keep working; the rule's name wins when both are set. */
  alias: string[];
  schema: Node;
}

const SCALAR = new Set(['integer', 'number', 'boolean', 'string', 'enum', 'union', 'list']);

/** The one rule: upper snake case of the path under `SPYGLASS_`. */
export function envName(path: readonly string[]): string {
  return `SPYGLASS_${path.join('_').toUpperCase()}`;
}

function settings(): EnvSetting[] {
  const out: EnvSetting[] = [];
  const visit = (props: Record<string, Node>, prefix: string[]) => {
    for (const [key, s] of Object.entries(props)) {
      const path = [...prefix, key];
      if (kind(s) === 'section' && prefix.length === 0)
        visit(s.properties as Record<string, Node>, path);
      else if (SCALAR.has(kind(s)))
        out.push({ path, name: envName(path), alias: s.alias ?? [], schema: s });
    }
  };
  visit(ConfigSchema.properties as unknown as Record<string, Node>, []);
  return out;
}

export const ENV_SETTINGS: readonly EnvSetting[] = settings();

/** What the environment gives, and which variable gave each setting. */
export interface EnvLayer {
  /** A spyglass.yaml-shaped object of the settings the environment gives (text, unconverted). */
  values: Record<string, Record<string, unknown> | unknown>;
  /** `ingest.max_body_bytes` -> `SPYGLASS_INGEST_MAX_BODY_BYTES` (or the alias that was read). */
  names: Map<string, string>;
}

/** Settings given by the environment; an empty variable is an unset one. */
export function readEnv(env: Env): EnvLayer {
  const values: Record<string, unknown> = {};
  const names = new Map<string, string>();
  for (const s of ENV_SETTINGS) {
    const name = [s.name, ...s.alias].find((n) => (env[n] ?? '').trim() !== '');
    if (!name) continue;
    names.set(pathText(s.path), name);
    const [first, second] = s.path as [string, string?];
    if (second === undefined) values[first] = env[name];
    else ((values[first] ??= {}) as Record<string, unknown>)[second] = env[name];
  }
  return { values, names };
}
