import { SpyglassError, type ValidationIssue } from '../errors.ts';
import { checkInt } from '../model/int-range.ts';
import { parseEnumParam } from '../traces/query-params.ts';
import {
  ANOMALY_SEVERITIES,
  METRICS,
  SERIES_HOURS_RANGE,
  type AnomalyFilter,
  type Metric,
} from '../model/anomaly.ts';

/**
 * The list filter from REST query parameters or GraphQL arguments: an unknown severity or metric is
 * a 422 naming the parameter (`loc: [where, name]`) and the allowed values.
 */
export function parseAnomalyFilter(
  raw: {
    serverName?: string | null | undefined;
    severity?: string | null | undefined;
    metric?: string | null | undefined;
  },
  where: 'query' | 'args',
  names: { serverName: string; severity: string; metric: string },
): AnomalyFilter {
  const issues: ValidationIssue[] = [];
  const severity = parseEnumParam(
    names.severity,
    raw.severity ?? undefined,
    ANOMALY_SEVERITIES,
    issues,
  );
  const metric = parseEnumParam(names.metric, raw.metric ?? undefined, METRICS, issues);
  fail(issues, where);
  return { serverName: raw.serverName || undefined, severity, metric };
}

export interface SeriesRequest {
  serverName: string;
  toolName: string;
  metric: Metric;
  hours: number;
}

/** A series request (GraphQL's arguments): metric one of METRICS, hours in SERIES_HOURS_RANGE. */
export interface SeriesArgs {
  serverName: string;
  toolName: string;
  metric: string;
  hours?: number | null | undefined;
}

export function parseSeriesArgs(raw: SeriesArgs): SeriesRequest {
  const issues: ValidationIssue[] = [];
  const metric = parseEnumParam('metric', raw.metric, METRICS, issues);
  const hours = checkInt('hours', raw.hours, SERIES_HOURS_RANGE, issues);
  fail(issues, 'args');
  return {
    serverName: raw.serverName,
    toolName: raw.toolName,
    metric: metric ?? 'error_rate',
    hours,
  };
}

function fail(issues: ValidationIssue[], where: string): void {
  if (issues.length === 0) return;
  for (const i of issues) i.loc[0] = where;
  throw new SpyglassError(
    'validation',
    issues.map((i) => `${String(i.loc[1])}: ${i.msg}`).join('; '),
    { issues },
  );
}
