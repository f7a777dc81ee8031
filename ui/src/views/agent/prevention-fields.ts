import { CombinedError } from '@urql/core';
import type { PreventionValues } from './queries.ts';

/** One field of the prevention form (docs/prevention.md), in the API's two spellings. */
export interface ConfigField {
  key: keyof PreventionValues;
  /** The stored (flat) name, which validation issues name. */
  snake: string;
  label: string;
  kind: 'bool' | 'int' | 'float' | 'action';
  /** Empty means no limit. */
  nullable?: boolean;
  hint?: string;
}

export const CONFIG_FIELDS: ConfigField[] = [
  { key: 'loopEnabled', snake: 'loop_enabled', label: 'Loop detection', kind: 'bool' },
  {
    key: 'loopThreshold',
    snake: 'loop_threshold',
    label: 'Loop threshold',
    kind: 'int',
    hint: 'identical calls, alternations or failures that make a loop',
  },
  { key: 'loopAction', snake: 'loop_action', label: 'On a loop', kind: 'action' },
  { key: 'maxSteps', snake: 'max_steps', label: 'Max steps', kind: 'int', nullable: true },
  {
    key: 'maxCostUsd',
    snake: 'max_cost_usd',
    label: 'Max cost (USD)',
    kind: 'float',
    nullable: true,
  },
  {
    key: 'maxWallTimeS',
    snake: 'max_wall_time_s',
    label: 'Max wall time (s)',
    kind: 'float',
    nullable: true,
  },
  {
    key: 'budgetSoftAlert',
    snake: 'budget_soft_alert',
    label: 'Budget soft alert',
    kind: 'float',
    nullable: true,
    hint: 'a fraction of the max cost below 1, else an amount in USD below it',
  },
  { key: 'cbEnabled', snake: 'cb_enabled', label: 'Circuit breaker', kind: 'bool' },
  {
    key: 'cbFailureThreshold',
    snake: 'cb_failure_threshold',
    label: 'Open after failures',
    kind: 'int',
  },
  {
    key: 'cbCooldownSeconds',
    snake: 'cb_cooldown_seconds',
    label: 'Cooldown (s)',
    kind: 'float',
  },
  {
    key: 'cbHalfOpenMaxCalls',
    snake: 'cb_half_open_max_calls',
    label: 'Half-open max calls',
    kind: 'int',
  },
];

/** A value as the read-only view shows it. */
export function showValue(f: ConfigField, v: PreventionValues[keyof PreventionValues]): string {
  if (f.kind === 'bool') return v ? 'on' : 'off';
  if (v === null) return 'no limit';
  return String(v);
}

/** The form's values as the mutation's input: empty number fields are null (no limit). */
export function inputOf(form: FormData): PreventionValues {
  const out: Record<string, unknown> = {};
  for (const f of CONFIG_FIELDS) {
    const raw = form.get(f.key);
    if (f.kind === 'bool') out[f.key] = raw === 'on';
    else if (f.kind === 'action') out[f.key] = String(raw ?? '');
    else {
      const text = String(raw ?? '').trim();
      const n = Number(text);
      out[f.key] = text === '' || !Number.isFinite(n) ? null : n;
    }
  }
  return out as unknown as PreventionValues;
}

export interface FormErrors {
  /** What the server said (or the network error). */
  message: string;
  /** Per field key: the server's validation message. */
  fields: Partial<Record<keyof PreventionValues, string>>;
}

/** The server's refusal, each validation issue under the field it names (`loc` ends with it). */
export function formErrors(err: unknown): FormErrors {
  const fields: FormErrors['fields'] = {};
  if (err instanceof CombinedError) {
    const g = err.graphQLErrors[0];
    const issues = (g?.extensions?.issues ?? []) as { loc?: unknown[]; msg?: string }[];
    for (const i of issues) {
      const name = String(i.loc?.at(-1) ?? '');
      const f = CONFIG_FIELDS.find((c) => c.snake === name || c.key === name);
      if (f) fields[f.key] = String(i.msg ?? 'invalid');
    }
    // A value GraphQL itself refuses (2.5 for an Int) names the input field in its message.
    const coerced = /at "input\.(\w+)"/.exec(g?.message ?? '');
    const f = CONFIG_FIELDS.find((c) => c.key === coerced?.[1]);
    if (f && g) fields[f.key] ??= g.message.slice(g.message.lastIndexOf(';') + 1).trim();
    return { message: g?.message ?? err.networkError?.message ?? err.message, fields };
  }
  return { message: err instanceof Error ? err.message : String(err), fields };
}
