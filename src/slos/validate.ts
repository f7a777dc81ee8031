import { SpyglassError, type ValidationIssue } from '../errors.ts';
import type { SloFields } from '../store/slos-repo.ts';

import { checkInt, type IntRange } from '../model/int-range.ts';
import { SLO_METRICS, type SloMetric } from '../model/slo.ts';

export const MAX_AGENT_NAME = 200;
/** The window an SLO is measured over, in hours: 30 days at most. */
export const SLO_WINDOW_HOURS: IntRange = { min: 1, max: 720, default: 24 };
const WRITABLE = ['agent_name', 'metric', 'threshold', 'window_hours'];

/**
 * Checks a create body (every field but window_hours required) or a PATCH body (any subset,
 * merged over `current`) and returns the fields to store. success_rate thresholds are
 * percentages; a value in (0, 1] is read as a fraction (docs/slos.md), so 1 means 100 %, never
 * 1 %. Every problem is reported at once, each naming its field.
 */
export function parseSloBody(body: unknown, current?: SloFields, projectId?: string): SloFields {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw invalid([{ loc: ['body'], msg: 'Input should be an object', type: 'dict_type' }]);
  const b = body as Record<string, unknown>;
  const issues: ValidationIssue[] = [];
  const issue = (field: string, msg: string, type: string) =>
    issues.push({ loc: ['body', field], msg, type });
  for (const key of Object.keys(b)) {
    // On create, project_id may repeat the project the request is scoped to (it is an SLO field).
    if (key === 'project_id' && current === undefined) {
      if (b.project_id !== projectId)
        issue(
          key,
          `Input should be the project this request is for (${projectId ?? ''})`,
          'value_error',
        );
    } else if (!WRITABLE.includes(key)) {
      issue(
        key,
        ['slo_id', 'project_id', 'created_at', 'updated_at'].includes(key)
          ? 'Field is read-only'
          : 'Extra inputs are not permitted',
        'extra_forbidden',
      );
    }
  }
  const has = (field: string) => b[field] !== undefined || current === undefined;

  let agentName = current?.agentName;
  if (has('agent_name')) {
    const v = b.agent_name;
    if (typeof v !== 'string')
      issue(
        'agent_name',
        v === undefined ? 'Field required' : 'Input should be a string',
        v === undefined ? 'missing' : 'string_type',
      );
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
  if (has('metric')) {
    const v = b.metric;
    if (v === undefined) issue('metric', 'Field required', 'missing');
    else if (typeof v !== 'string' || !(SLO_METRICS as readonly string[]).includes(v))
      issue('metric', `Input should be ${SLO_METRICS.join(' or ')}`, 'enum');
    else metric = v;
  }

  let threshold = current?.threshold;
  const given = b.threshold;
  if (given !== undefined || current === undefined) {
    if (given === undefined) issue('threshold', 'Field required', 'missing');
    else if (typeof given !== 'number' || !Number.isFinite(given))
      issue('threshold', 'Input should be a number', 'float_type');
    else threshold = given;
  }
  // A threshold means ms or % by metric, so a PATCH that changes the metric must restate it.
  if (
    current !== undefined &&
    given === undefined &&
    b.metric !== undefined &&
    b.metric !== current.metric
  )
    issue('threshold', 'Field required when metric changes', 'missing');
  else if (
    threshold !== undefined &&
    metric !== undefined &&
    (b.threshold !== undefined || b.metric !== undefined)
  ) {
    const checked = checkThreshold(metric as SloMetric, threshold);
    if (typeof checked === 'string') issue('threshold', checked, 'value_error');
    else threshold = checked;
  }

  let windowHours = current?.windowHours ?? SLO_WINDOW_HOURS.default;
  if (b.window_hours !== undefined) {
    const w = b.window_hours;
    if (typeof w !== 'number' || !Number.isInteger(w))
      issue('window_hours', 'Input should be a valid integer', 'int_type');
    else windowHours = checkInt('window_hours', w, SLO_WINDOW_HOURS, issues, 'body');
  }
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
