import { SpyglassError, type ValidationIssue } from '../errors.ts';
import { parseEnumParam } from '../traces/query-params.ts';
import { ANOMALY_SEVERITIES, METRICS, type AnomalyFilter } from '../model/anomaly.ts';

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
  if (issues.length > 0) {
    for (const i of issues) i.loc[0] = where;
    throw new SpyglassError(
      'validation',
      issues.map((i) => `${String(i.loc[1])}: ${i.msg}`).join('; '),
      { issues },
    );
  }
  return { serverName: raw.serverName || undefined, severity, metric };
}
