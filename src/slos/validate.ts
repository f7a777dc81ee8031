import { SpyglassError, type ValidationIssue } from '../errors.ts';
import type { SloFields } from '../store/slos-repo.ts';

import { checkInt, type IntRange } from '../model/int-range.ts';
import { SLO_METRICS, type SloInput, type SloMetric } from '../model/slo.ts';

export const MAX_AGENT_NAME = 200;
/** The window an SLO is measured over, in hours: 30 days at most. */
export const SLO_WINDOW_HOURS: IntRange = { min: 1, max: 720, default: 24 };
/**
 * Checks a create (agentName, metric and threshold required) or a change (any subset, merged over
 * `current`) and returns the fields to store. success_rate thresholds are percentages; a value in
 * (0, 1] is read as a fraction (docs/slos.md), so 1 means 100 %, never 1 %. Every problem is
 * reported at once, each naming its field as the API does (`loc: ["body", "window_hours"]`).
 * On create, `input.projectId` may repeat the project the request is for (`projectId`).
 */
export function checkSlo(input: SloInput, current?: SloFields, projectId?: string): SloFields {
  const issues: ValidationIssue[] = [];
  const issue = (field: string, msg: string, type: string) =>
    issues.push({ loc: ['body', field], msg, type });
  const creating = current === undefined;
  if (creating && input.projectId != null && input.projectId !== projectId)
    issue(
      'project_id',
      `Input should be the project this request is for (${projectId ?? ''})`,
      'value_error',
    );
  if (!creating && input.projectId !== undefined)
    issue('project_id', 'Field is read-only', 'extra_forbidden');

  let agentName = current?.agentName;
  if (input.agentName !== undefined || creating) {
    const v = input.agentName;
    if (v === undefined) issue('agent_name', 'Field required', 'missing');
    else if (v === null) issue('agent_name', 'Input should be a string', 'string_type');
    else if (v.trim() === '') issue('agent_name', 'Input should not be empty', 'string_too_short');
    else if (v.length > MAX_AGENT_NAME)
      issue(
        'agent_name',
        `Input should have at most ${MAX_AGENT_NAME} characters`,
        'string_too_long',
      );
    else agentName = v;
  }

  let metric = current?.metric;
  if (input.metric !== undefined || creating) {
    const v = input.metric;
    if (v === undefined) issue('metric', 'Field required', 'missing');
    else if (v === null || !(SLO_METRICS as readonly string[]).includes(v))
      issue('metric', `Input should be ${SLO_METRICS.join(' or ')}`, 'enum');
    else metric = v;
  }

  let threshold = current?.threshold;
  const given = input.threshold;
  if (given !== undefined || creating) {
    if (given === undefined) issue('threshold', 'Field required', 'missing');
    else if (given === null || !Number.isFinite(given))
      issue('threshold', 'Input should be a number', 'float_type');
    else threshold = given;
  }
  // A threshold means ms or % by metric, so a change of the metric must restate it.
  if (
    !creating &&
    given === undefined &&
    input.metric !== undefined &&
    input.metric !== current.metric
  )
    issue('threshold', 'Field required when metric changes', 'missing');
  else if (
    threshold !== undefined &&
    metric !== undefined &&
    (given !== undefined || input.metric !== undefined)
  ) {
    const checked = checkThreshold(metric as SloMetric, threshold);
    if (typeof checked === 'string') issue('threshold', checked, 'value_error');
    else threshold = checked;
  }

  const w = input.windowHours;
  if (w === null) issue('window_hours', 'Input should be a valid integer', 'int_type');
  const windowHours =
    w === undefined || w === null
      ? (current?.windowHours ?? SLO_WINDOW_HOURS.default)
      : checkInt('window_hours', w, SLO_WINDOW_HOURS, issues, 'body');
  if (
    issues.length > 0 ||
    agentName === undefined ||
    metric === undefined ||
    threshold === undefined
  )
    throw invalid(issues);
  return { agentName, metric, threshold, windowHours };
}

/** The stored threshold, or why the value cannot be one. */
function checkThreshold(metric: SloMetric, t: number): number | string {
  if (metric === 'latency_p99')
    return t > 0 ? t : 'latency_p99 threshold should be milliseconds greater than 0';
  if (t <= 0 || t > 100)
    return 'success_rate threshold should be a percentage in (0, 100]; a value in (0, 1] is read as a fraction';
  // Rounded so 0.95 is stored as 95, not 95.00000000000001.
  return t <= 1 ? Math.round(t * 100 * 1e9) / 1e9 : t;
}

function invalid(issues: ValidationIssue[]): SpyglassError {
  return new SpyglassError('validation', 'invalid SLO', { issues });
}
