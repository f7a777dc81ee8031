/**
 * The prevention config (docs/prevention.md): the flat shape the server stores and answers, the
 * nested shape accepted on PUT, defaults and validation that names the offending field in the
 * caller's spelling. The agent SDK keeps its own copy (sdk/src/config.ts: it reads and enforces
 * the same config and imports nothing of the server); test/sdk/contract.test.ts holds the fields,
 * defaults and validation of both equal.
 */

export const LOOP_ACTIONS = ['warn', 'terminate'] as const;
export type LoopAction = (typeof LOOP_ACTIONS)[number];

/** The flat shape without its identity fields (id, project_id, agent_name, …). */
export interface PreventionConfig {
  loop_enabled: boolean;
  /** N for the loop patterns: N identical calls, an alternation of N calls, N identical failures. */
  loop_threshold: number;
  loop_action: LoopAction;
  /** Tool calls allowed per session; null = no limit. */
  max_steps: number | null;
  /** LLM + tool cost allowed per session in USD; null = no limit. */
  max_cost_usd: number | null;
  /** Wall time allowed per session in seconds; null = no limit. */
  max_wall_time_s: number | null;
  /**
   * Soft budget alert: a fraction of max_cost_usd when below 1, else an amount in USD below
   * max_cost_usd. Without max_cost_usd it has no effect.
   */
  budget_soft_alert: number | null;
  cb_enabled: boolean;
  cb_failure_threshold: number;
  cb_cooldown_seconds: number;
  cb_half_open_max_calls: number;
}

export const PREVENTION_FIELDS = [
  'loop_enabled',
  'loop_threshold',
  'loop_action',
  'max_steps',
  'max_cost_usd',
  'max_wall_time_s',
  'budget_soft_alert',
  'cb_enabled',
  'cb_failure_threshold',
  'cb_cooldown_seconds',
  'cb_half_open_max_calls',
] as const satisfies readonly (keyof PreventionConfig)[];

/** The spec's defaults (docs/prevention.md). */
export const DEFAULT_PREVENTION: Readonly<PreventionConfig> = Object.freeze({
  loop_enabled: true,
  loop_threshold: 5,
  loop_action: 'warn',
  max_steps: null,
  max_cost_usd: null,
  max_wall_time_s: null,
  budget_soft_alert: 0.8,
  cb_enabled: true,
  cb_failure_threshold: 5,
  cb_cooldown_seconds: 30,
  cb_half_open_max_calls: 3,
});

/** The nested shape of docs/prevention.md (every field optional). */
export interface NestedPreventionConfig {
  agent_name?: string;
  is_agent_override?: boolean;
  loop_detection?: {
    enabled?: boolean;
    threshold?: number;
    action?: LoopAction;
    max_steps?: number | null;
  };
  budget?: {
    max_cost_usd?: number | null;
    soft_alert_threshold_usd?: number | null;
    max_wall_time_seconds?: number | null;
  };
  circuit_breaker?: {
    enabled?: boolean;
    open_after_failures?: number;
    cooldown_seconds?: number;
    half_open_max_calls?: number;
  };
}

export interface ConfigIssue {
  /** The field in the spelling the caller used, e.g. `loop_threshold` or `budget.max_cost_usd`. */
  field: string;
  message: string;
}

const NESTED_GROUPS = ['loop_detection', 'budget', 'circuit_breaker'] as const;

/** True when the body uses the nested shape (it has one of the three groups as an object). */
export function isNestedShape(body: Record<string, unknown>): boolean {
  return NESTED_GROUPS.some((g) => typeof body[g] === 'object' && body[g] !== null);
}

type NestedPath = readonly [group: (typeof NESTED_GROUPS)[number], key: string];
const NESTED_TO_FLAT: Readonly<
  Record<Exclude<keyof PreventionConfig, 'budget_soft_alert'>, NestedPath>
> = {
  loop_enabled: ['loop_detection', 'enabled'],
  loop_threshold: ['loop_detection', 'threshold'],
  loop_action: ['loop_detection', 'action'],
  max_steps: ['loop_detection', 'max_steps'],
  max_cost_usd: ['budget', 'max_cost_usd'],
  max_wall_time_s: ['budget', 'max_wall_time_seconds'],
  cb_enabled: ['circuit_breaker', 'enabled'],
  cb_failure_threshold: ['circuit_breaker', 'open_after_failures'],
  cb_cooldown_seconds: ['circuit_breaker', 'cooldown_seconds'],
  cb_half_open_max_calls: ['circuit_breaker', 'half_open_max_calls'],
};

/** The flat field a nested path maps to, for error messages (`budget.max_cost_usd` → itself). */
export function nestedFieldName(flat: keyof PreventionConfig): string {
  if (flat === 'budget_soft_alert') return 'budget.soft_alert_threshold_usd';
  const [group, key] = NESTED_TO_FLAT[flat];
  return `${group}.${key}`;
}

/**
 * The flat fields a nested body sets (only those present). `soft_alert_threshold_usd` is an amount
 * and becomes the fraction amount / max_cost_usd; without a max_cost_usd it is reported as an issue.
 * Unknown groups or keys are reported too.
 */
export function flattenNested(body: Record<string, unknown>): {
  values: Partial<Record<keyof PreventionConfig, unknown>>;
  issues: ConfigIssue[];
} {
  const values: Partial<Record<keyof PreventionConfig, unknown>> = {};
  const issues: ConfigIssue[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (key === 'agent_name' || key === 'is_agent_override') continue;
    if (!(NESTED_GROUPS as readonly string[]).includes(key))
      issues.push({ field: key, message: 'unknown field' });
    else if (
      value !== undefined &&
      (typeof value !== 'object' || value === null || Array.isArray(value))
    )
      issues.push({ field: key, message: 'must be an object' });
  }
  const groupOf = (g: string): Record<string, unknown> => {
    const v = body[g];
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : {};
  };
  for (const group of NESTED_GROUPS) {
    const known = new Set(
      Object.values(NESTED_TO_FLAT)
        .filter(([g]) => g === group)
        .map(([, k]) => k),
    );
    if (group === 'budget') known.add('soft_alert_threshold_usd');
    for (const key of Object.keys(groupOf(group)))
      if (!known.has(key)) issues.push({ field: `${group}.${key}`, message: 'unknown field' });
  }
  for (const flat of Object.keys(NESTED_TO_FLAT) as (keyof typeof NESTED_TO_FLAT)[]) {
    const [group, key] = NESTED_TO_FLAT[flat];
    const g = groupOf(group);
    if (key in g && g[key] !== undefined) values[flat] = g[key];
  }
  const budget = groupOf('budget');
  const soft = budget['soft_alert_threshold_usd'];
  if (soft !== undefined && soft !== null) {
    const max = budget['max_cost_usd'];
    if (typeof soft !== 'number' || !Number.isFinite(soft) || soft <= 0)
      issues.push({
        field: 'budget.soft_alert_threshold_usd',
        message: 'must be a positive number',
      });
    else if (typeof max !== 'number' || !(max > 0))
      issues.push({
        field: 'budget.soft_alert_threshold_usd',
        message: 'needs budget.max_cost_usd',
      });
    else if (soft >= max)
      issues.push({
        field: 'budget.soft_alert_threshold_usd',
        message: 'must be less than budget.max_cost_usd',
      });
    else values.budget_soft_alert = soft / max;
  } else if (soft === null) values.budget_soft_alert = null;
  return { values, issues };
}

const isPositiveInt = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 1;
const isPositiveNumber = (v: unknown): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v > 0;

/**
 * Checks a whole flat config (types and ranges, docs/prevention.md): threshold and breaker counts ≥ 1,
 * action warn|terminate, positive limits (null = no limit), budget_soft_alert a fraction in (0, 1)
 * or an amount ≥ 1 below max_cost_usd. Field names in issues are the flat ones.
 */
export function validatePrevention(c: Record<keyof PreventionConfig, unknown>): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const bool = (f: keyof PreventionConfig): void => {
    if (typeof c[f] !== 'boolean') issues.push({ field: f, message: 'must be a boolean' });
  };
  const int = (f: keyof PreventionConfig, nullable: boolean): void => {
    if (nullable && c[f] === null) return;
    if (!isPositiveInt(c[f]))
      issues.push({
        field: f,
        message: nullable
          ? 'must be an integer ≥ 1, or null for no limit'
          : 'must be an integer ≥ 1',
      });
  };
  bool('loop_enabled');
  int('loop_threshold', false);
  if (!(LOOP_ACTIONS as readonly unknown[]).includes(c.loop_action))
    issues.push({ field: 'loop_action', message: 'must be warn or terminate' });
  int('max_steps', true);
  if (c.max_cost_usd !== null && !isPositiveNumber(c.max_cost_usd))
    issues.push({
      field: 'max_cost_usd',
      message: 'must be a positive number, or null for no limit',
    });
  // Seconds may be fractional (LangSight sends 30.5 and 1.5).
  if (c.max_wall_time_s !== null && !isPositiveNumber(c.max_wall_time_s))
    issues.push({
      field: 'max_wall_time_s',
      message: 'must be a positive number, or null for no limit',
    });
  const soft = c.budget_soft_alert;
  if (soft !== null) {
    if (!isPositiveNumber(soft))
      issues.push({
        field: 'budget_soft_alert',
        message: 'must be a fraction below 1 or an amount below max_cost_usd',
      });
    else if (soft >= 1 && (typeof c.max_cost_usd !== 'number' || soft >= c.max_cost_usd))
      issues.push({
        field: 'budget_soft_alert',
        message: 'an amount (≥ 1) must be below max_cost_usd',
      });
  }
  bool('cb_enabled');
  int('cb_failure_threshold', false);
  if (!isPositiveNumber(c.cb_cooldown_seconds))
    issues.push({ field: 'cb_cooldown_seconds', message: 'must be a positive number' });
  int('cb_half_open_max_calls', false);
  return issues;
}

/** The soft alert threshold in USD, or null when there is none. */
export function softAlertUsd(c: PreventionConfig): number | null {
  if (c.max_cost_usd === null || c.budget_soft_alert === null) return null;
  return c.budget_soft_alert < 1 ? c.budget_soft_alert * c.max_cost_usd : c.budget_soft_alert;
}

/**
 * A whole config: `base` (the spec defaults for a PUT or a constructor; the stored config for a
 * PATCH), then the fields given. Unvalidated.
 */
export function withDefaults(
  fields: Partial<Record<keyof PreventionConfig, unknown>>,
  base: Readonly<PreventionConfig> = DEFAULT_PREVENTION,
): Record<keyof PreventionConfig, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const f of PREVENTION_FIELDS) if (fields[f] !== undefined) out[f] = fields[f];
  return out as Record<keyof PreventionConfig, unknown>;
}

/** Where a config's values come from: the agent's override, the project default, or the built-in defaults (nothing stored). */
export type PreventionSource = 'agent' | 'project' | 'default';

/** A config as a project holds it: an agent's override, the project default, or (nothing stored) the defaults. */
export interface ScopedPreventionConfig {
  /** null when nothing is stored (the defaults answer). */
  id: string | null;
  projectId: string;
  /** `*` for the project default. */
  agentName: string;
  /** true only when the agent has its own stored override. */
  isAgentOverride: boolean;
  source: PreventionSource;
  /** The values, in the flat shape the SDK shares (snake_case, held equal by the contract test). */
  config: PreventionConfig;
  updatedAt: Date | null;
}

/** The API's JSON of a config (REST and the CLI): the flat shape plus where it comes from. */
export function toPreventionConfigJson(c: ScopedPreventionConfig) {
  return {
    id: c.id,
    project_id: c.projectId,
    agent_name: c.agentName,
    is_agent_override: c.isAgentOverride,
    source: c.source,
    ...c.config,
    updated_at: c.updatedAt?.toISOString() ?? null,
  };
}
export type PreventionConfigJson = ReturnType<typeof toPreventionConfigJson>;

/** A write's flat fields as given: null lifts a limit (PreventionService refuses it where none may be lifted). */
export type PreventionFields = {
  [K in keyof PreventionConfig]?: (K extends 'loop_action' ? string : PreventionConfig[K]) | null;
};

/**
 * A prevention config write (PUT/PATCH, setPreventionConfig/updatePreventionConfig): the fields to
 * set over the defaults (replace) or the stored config (update). PreventionService checks the whole
 * result for every adapter, naming each problem by its flat field (`loc: ["body", "max_steps"]`).
 */
export interface PreventionInput {
  fields: PreventionFields;
  /**
   * A soft alert given as an amount in USD (the nested shape's `budget.soft_alert_threshold_usd`):
   * stored as the fraction of max_cost_usd, the one given or else the stored one.
   */
  softAlertUsd?: number;
  /** The config's identity when a client echoes it back: it must be the one the request is for. */
  agentName?: string;
  projectId?: string;
}
