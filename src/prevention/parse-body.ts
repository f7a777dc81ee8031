import { SpyglassError, type ValidationIssue } from '../errors.ts';
import {
  PREVENTION_FIELDS,
  flattenNested,
  isNestedShape,
  nestedFieldName,
  validatePrevention,
  withDefaults,
  type ConfigIssue,
  type PreventionConfig,
} from '../model/prevention-config.ts';

/** PostgreSQL `integer`: the integer columns hold no more (a larger value is a 422, not a 500). */
export const MAX_INT = 2_147_483_647;
const INT_FIELDS: readonly (keyof PreventionConfig)[] = [
  'loop_threshold',
  'max_steps',
  'max_wall_time_s',
  'cb_failure_threshold',
  'cb_cooldown_seconds',
  'cb_half_open_max_calls',
];

/**
 * Fields of a response that a client may send back unchanged (GET, edit, PUT). They identify the
 * config and come from the path; agent_name and project_id must agree with it when sent.
 */
const ECHOED = ['id', 'is_agent_override', 'updated_at', 'created_at'];

export interface Target {
  projectId: string;
  agentName: string;
}

/**
 * The whole config a PUT (`base` = the defaults) or PATCH (`base` = the current config) body
 * results in. The body may be flat or nested (docs/prevention.md#the-two-shapes); unknown fields and every rule of
 * validatePrevention give one 422 listing each problem under the field as the caller spelt it.
 */
export function parsePreventionBody(
  body: unknown,
  target: Target,
  base: Readonly<PreventionConfig>,
): PreventionConfig {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalid([{ loc: ['body'], msg: 'Input should be an object', type: 'dict_type' }]);
  }
  const b = body as Record<string, unknown>;
  const issues: ValidationIssue[] = [];
  checkIdentity(b, target, issues);
  const rest = Object.fromEntries(
    Object.entries(b).filter(
      ([k]) => !ECHOED.includes(k) && k !== 'project_id' && k !== 'agent_name',
    ),
  );
  const nested = isNestedShape(rest);
  let values: Partial<Record<keyof PreventionConfig, unknown>>;
  if (nested) {
    const flat = flattenNested(withBaseMax(rest, base));
    values = flat.values;
    issues.push(...flat.issues.map((i) => toIssue(i, true)));
  } else {
    values = {};
    for (const [k, v] of Object.entries(rest)) {
      if ((PREVENTION_FIELDS as readonly string[]).includes(k))
        values[k as keyof PreventionConfig] = v;
      else issues.push(toIssue({ field: k, message: 'unknown field' }, false));
    }
  }
  const config = withDefaults(values, base);
  // The whole result is checked: a PATCH lowering max_cost_usd below a stored soft alert amount
  // names budget_soft_alert although the body did not send it.
  for (const i of validatePrevention(config)) {
    const f = i.field as keyof PreventionConfig;
    issues.push(toIssue({ field: nested ? nestedFieldName(f) : f, message: i.message }, nested));
  }
  for (const f of INT_FIELDS) {
    const v = config[f];
    if (typeof v === 'number' && v > MAX_INT)
      issues.push(
        toIssue(
          { field: nested ? nestedFieldName(f) : f, message: `must be at most ${MAX_INT}` },
          nested,
        ),
      );
  }
  if (issues.length > 0) throw invalid(dedupe(issues));
  return config as PreventionConfig;
}

/**
 * A nested soft alert is an amount turned into a fraction of max_cost_usd; a PATCH that sends the
 * amount alone means the stored max, so the stored max is put beside it before flattening.
 */
function withBaseMax(
  body: Record<string, unknown>,
  base: Readonly<PreventionConfig>,
): Record<string, unknown> {
  const budget = body.budget;
  if (
    base.max_cost_usd === null ||
    typeof budget !== 'object' ||
    budget === null ||
    Array.isArray(budget)
  )
    return body;
  const b = budget as Record<string, unknown>;
  if (b.soft_alert_threshold_usd === undefined || b.max_cost_usd !== undefined) return body;
  return { ...body, budget: { ...b, max_cost_usd: base.max_cost_usd } };
}

function checkIdentity(
  b: Record<string, unknown>,
  target: Target,
  issues: ValidationIssue[],
): void {
  if (b.agent_name !== undefined && b.agent_name !== target.agentName) {
    issues.push({
      loc: ['body', 'agent_name'],
      msg: `Input should be the agent this request is for (${target.agentName})`,
      type: 'value_error',
    });
  }
  if (b.project_id !== undefined && b.project_id !== target.projectId) {
    issues.push({
      loc: ['body', 'project_id'],
      msg: `Input should be the project this request is for (${target.projectId})`,
      type: 'value_error',
    });
  }
}

/** A nested field `budget.max_cost_usd` becomes loc ["body", "budget", "max_cost_usd"]. */
function toIssue(i: ConfigIssue, nested: boolean): ValidationIssue {
  const path = nested ? i.field.split('.') : [i.field];
  if (i.message === 'unknown field')
    return {
      loc: ['body', ...path],
      msg: 'Extra inputs are not permitted',
      type: 'extra_forbidden',
    };
  return { loc: ['body', ...path], msg: `Input ${i.message}`, type: 'value_error' };
}

function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = JSON.stringify(i.loc);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function invalid(issues: ValidationIssue[]): SpyglassError {
  return new SpyglassError('validation', 'invalid prevention config', { issues });
}
