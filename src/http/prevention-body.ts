import { Type as T, type TSchema } from 'typebox';
import { SpyglassError } from '../errors.ts';
import {
  PREVENTION_FIELDS,
  nestedFieldName,
  type PreventionConfig,
  type PreventionFields,
  type PreventionInput,
} from '../model/prevention-config.ts';

const Nullable = (type: 'boolean' | 'number' | 'string') =>
  T.Optional(T.Unsafe<boolean | number | string | null>({ type: [type, 'null'] }));
const typeOf = (f: keyof PreventionConfig) =>
  f === 'loop_action' ? 'string' : f.endsWith('_enabled') ? 'boolean' : 'number';

/** What a client may send back unchanged from a GET; agent_name and project_id must match the path. */
const identity = {
  id: T.Optional(T.Unknown()),
  is_agent_override: T.Optional(T.Unknown()),
  updated_at: T.Optional(T.Unknown()),
  created_at: T.Optional(T.Unknown()),
  agent_name: T.Optional(T.String()),
  project_id: T.Optional(T.String()),
};
const Flat = T.Object(
  {
    ...identity,
    ...Object.fromEntries(PREVENTION_FIELDS.map((f) => [f, Nullable(typeOf(f))])),
  },
  { additionalProperties: false },
);
/** Each nested group holds the flat fields named by nestedFieldName (`budget.max_cost_usd`). */
const GROUPS = ['loop_detection', 'budget', 'circuit_breaker'] as const;
const group = (g: string) => {
  const keys: [string, TSchema][] = PREVENTION_FIELDS.flatMap((f) => {
    const [at, key] = nestedFieldName(f).split('.') as [string, string];
    return at === g ? [[key, Nullable(typeOf(f))]] : [];
  });
  return T.Optional(T.Object(Object.fromEntries(keys), { additionalProperties: false }));
};
const Nested = T.Object(
  { ...identity, ...Object.fromEntries(GROUPS.map((g) => [g, group(g)])) },
  { additionalProperties: false },
);

/**
 * The body of a prevention config write: the flat shape, or the nested one when a group is an
 * object (docs/prevention.md#the-two-shapes). Value rules are PreventionService's.
 */
export const PreventionBody = T.Unsafe<Record<string, unknown>>({
  if: {
    anyOf: GROUPS.map((g) => ({
      type: 'object',
      required: [g],
      properties: { [g]: { type: 'object' } },
    })),
  },
  then: Nested,
  else: Flat,
});
/** What the schema lets through, as read here. */
type Body = Record<string, unknown> & { agent_name?: string; project_id?: string };

/** The body (already held to PreventionBody) in domain terms, and whether it was nested. */
export function preventionInput(raw: Record<string, unknown>): {
  input: PreventionInput;
  nested: boolean;
} {
  const b = raw as Body;
  const nested = GROUPS.some((g) => b[g] !== undefined);
  const fields: Record<string, unknown> = {};
  let softAlertUsd: number | undefined;
  for (const f of PREVENTION_FIELDS) {
    if (!nested) fields[f] = b[f];
    else {
      const [g, key] = nestedFieldName(f).split('.') as [(typeof GROUPS)[number], string];
      const v = (b[g] as Record<string, unknown> | undefined)?.[key];
      // The nested soft alert is an amount in USD; null lifts it like the flat field.
      if (f === 'budget_soft_alert' && typeof v === 'number') softAlertUsd = v;
      else fields[f] = v;
    }
  }
  const input: PreventionInput = { fields: fields as PreventionFields };
  if (softAlertUsd !== undefined) input.softAlertUsd = softAlertUsd;
  if (b.agent_name !== undefined) input.agentName = b.agent_name;
  if (b.project_id !== undefined) input.projectId = b.project_id;
  return { input, nested };
}

/** The service names flat fields; a nested body hears of them as it spelt them (`budget.max_cost_usd`). */
export async function inCallerSpelling<R>(nested: boolean, write: Promise<R>): Promise<R> {
  try {
    return await write;
  } catch (err) {
    if (!nested || !(err instanceof SpyglassError) || !err.issues) throw err;
    const issues = err.issues.map((i) => {
      const f = i.loc[1] as keyof PreventionConfig;
      if (i.loc.length !== 2 || !(PREVENTION_FIELDS as readonly unknown[]).includes(f)) return i;
      return { ...i, loc: ['body', ...nestedFieldName(f).split('.')] };
    });
    throw new SpyglassError(err.code, err.message, { issues });
  }
}
