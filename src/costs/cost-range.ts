import { SpyglassError, type ValidationIssue } from '../errors.ts';
import { COST_WINDOWS, type CostRange, type CostWindow } from '../model/cost.ts';
import { windowEdges } from './breakdown.ts';

const HOUR = 3_600_000;
/** The longest range a caller may name: the longest window, so a read costs no more than 30d. */
export const MAX_RANGE_HOURS = COST_WINDOWS['30d'];

/** What a caller asks for: a named window, or `since`/`until` (both) for a range of its own. */
export interface CostRangeQuery {
  window?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  now?: Date | undefined;
}

/**
 * The hour-aligned edges a breakdown or series reads. A named window (24h, 7d or 30d; default
 * 24h) ends with the current hour; `since`/`until` widen to whole hours (the rollup keeps hours)
 * and may span at most 30 days, so any range reads no more rows than the 30d window. Bad input is
 * one 422 naming every field at fault.
 */
export function costRange(q: CostRangeQuery): CostRange {
  const issues: ValidationIssue[] = [];
  const custom = q.since !== undefined || q.until !== undefined;
  if (!custom) {
    const window = checkWindow(q.window);
    return { window, ...windowEdges(window, q.now ?? new Date()) };
  }
  if (q.window !== undefined && q.window !== '')
    issues.push(issue('window', 'Give either window or since and until, not both', 'value_error'));
  for (const key of ['since', 'until'] as const) {
    const d = q[key];
    if (d === undefined)
      issues.push(issue(key, 'Field required with a range: both since and until', 'missing'));
    else if (Number.isNaN(d.getTime()))
      issues.push(issue(key, 'Input should be an ISO 8601 datetime', 'datetime_parsing'));
  }
  if (issues.length === 0) {
    const since = Math.floor((q.since as Date).getTime() / HOUR) * HOUR;
    const until = Math.ceil((q.until as Date).getTime() / HOUR) * HOUR;
    if (until <= since) issues.push(issue('until', 'Input should be after since', 'value_error'));
    else if (until - since > MAX_RANGE_HOURS * HOUR)
      issues.push(
        issue('until', `The range may span at most ${MAX_RANGE_HOURS / 24} days`, 'value_error'),
      );
    else return { window: 'custom', since: new Date(since), until: new Date(until) };
  }
  throw new SpyglassError('validation', 'invalid cost range', { issues });
}

/** `window`: 24h, 7d or 30d (default 24h); anything else is a 422 naming the field. */
function checkWindow(raw: string | undefined): CostWindow {
  if (raw === undefined || raw === '') return '24h';
  if (Object.hasOwn(COST_WINDOWS, raw)) return raw as CostWindow;
  throw new SpyglassError('validation', 'invalid window', {
    issues: [
      issue('window', `Input should be one of ${Object.keys(COST_WINDOWS).join(', ')}`, 'enum'),
    ],
  });
}

function issue(field: string, msg: string, type: string): ValidationIssue {
  return { loc: ['query', field], msg, type };
}
