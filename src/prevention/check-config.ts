import { SpyglassError, type ValidationIssue } from '../errors.ts';
import {
  validatePrevention,
  withDefaults,
  type PreventionConfig,
  type PreventionInput,
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

export interface Target {
  projectId: string;
  agentName: string;
}

/**
 * The whole config a replace (`base` = the defaults) or an update (`base` = the current config)
 * results in, checked for every adapter: the identity echoed must be the target's, a soft alert
 * amount needs a max above it, and the result must pass validatePrevention and fit the integer
 * columns. One 422 lists each problem under its flat field (`loc: ["body", "loop_threshold"]`); a
 * rule on the whole result names a field the write did not send (an update lowering max_cost_usd
 * below a stored soft alert amount names budget_soft_alert).
 */
export function checkPrevention(
  input: PreventionInput,
  target: Target,
  base: Readonly<PreventionConfig>,
): PreventionConfig {
  const issues: ValidationIssue[] = [];
  const issue = (field: string, msg: string) =>
    issues.push({ loc: ['body', field], msg, type: 'value_error' });
  if (input.agentName !== undefined && input.agentName !== target.agentName)
    issue('agent_name', `Input should be the agent this request is for (${target.agentName})`);
  if (input.projectId !== undefined && input.projectId !== target.projectId)
    issue('project_id', `Input should be the project this request is for (${target.projectId})`);
  const fields: Partial<Record<keyof PreventionConfig, unknown>> = { ...input.fields };
  const soft = input.softAlertUsd;
  if (soft !== undefined) {
    const max = fields.max_cost_usd !== undefined ? fields.max_cost_usd : base.max_cost_usd;
    if (!Number.isFinite(soft) || soft <= 0)
      issue('budget_soft_alert', 'Input must be a positive number');
    else if (typeof max !== 'number' || !(max > 0))
      issue('budget_soft_alert', 'Input needs max_cost_usd');
    else if (soft >= max) issue('budget_soft_alert', 'Input must be less than max_cost_usd');
    else fields.budget_soft_alert = soft / max;
  }
  const config = withDefaults(fields, base);
  for (const i of validatePrevention(config)) issue(i.field, `Input ${i.message}`);
  for (const f of INT_FIELDS) {
    const v = config[f];
    if (typeof v === 'number' && v > MAX_INT) issue(f, `Input must be at most ${MAX_INT}`);
  }
  if (issues.length > 0) throw invalid(dedupe(issues));
  return config as PreventionConfig;
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
