import type { IntRange } from './int-range.ts';
/**
 * Anomaly records (docs/anomalies.md): a tool's hourly error rate or mean latency
 * scored as z against its own 7-day hourly baseline. Choices are explained in docs/anomalies.md.
 */

export const METRICS = ['error_rate', 'latency_ms'] as const;
export type Metric = (typeof METRICS)[number];

export const ANOMALY_SEVERITIES = ['critical', 'warning'] as const;
export type AnomalySeverity = (typeof ANOMALY_SEVERITIES)[number];

/** |z| at or above these is anomalous (docs/anomalies.md#alerts-and-episodes). */
export const WARNING_Z = 2;
export const CRITICAL_Z = 3;

/**
 * Smallest standard deviation a z divides by: a flat baseline (every hour 0 errors, or 100 ms)
 * would otherwise turn any change into an infinite z.
 */
export const STDDEV_FLOOR: Readonly<Record<Metric, number>> = { error_rate: 0.01, latency_ms: 10 };

/** The current clock hour is the sample once it has this many calls; before that, the previous hour. */
export const MIN_CURRENT_CALLS = 5;
/** Hourly samples the baseline needs; fewer gives no result. */
export const MIN_BASELINE_SAMPLES = 3;
export const BASELINE_DAYS = 7;

/** One evaluated metric of one tool, as stored and as the API returns it (camelCase here). */
export interface AnomalyRecord {
  projectId: string;
  serverName: string;
  toolName: string;
  metric: Metric;
  /** Signed: positive is worse than usual (more errors, slower), negative better. */
  zScore: number;
  currentValue: number;
  /** The baseline mean. */
  baselineValue: number;
  baselineStddev: number;
  sampleCount: number;
  sampleHour: Date;
  /** null when |z| < 2 (not anomalous). */
  severity: AnomalySeverity | null;
  /** The evaluation that produced this record. */
  detectedAt: Date;
  /** When the current anomalous run began (null when not anomalous). */
  since: Date | null;
}

/** One clock hour of a tool's metric (docs/anomalies.md#series): what the chart of an anomaly plots. */
export interface AnomalyPoint {
  hour: Date;
  calls: number;
  /** The metric's hourly value: errors ÷ calls, or the mean latency in ms. */
  value: number;
}

/** Hours a series covers by default (the 7-day baseline, the sample hour and the current one) and at most. */
export const SERIES_HOURS = BASELINE_DAYS * 24 + 2;
export const MAX_SERIES_HOURS = 720;
/** anomalySeries' `hours`, as AnomalyDetector.series checks it. */
export const SERIES_HOURS_RANGE: IntRange = {
  min: 1,
  max: MAX_SERIES_HOURS,
  default: SERIES_HOURS,
};

export interface AnomalyFilter {
  serverName?: string | undefined;
  severity?: AnomalySeverity | undefined;
  metric?: Metric | undefined;
}

/** The REST shape (docs/anomalies.md#rest). */
export function toAnomalyJson(a: AnomalyRecord) {
  return {
    server_name: a.serverName,
    tool_name: a.toolName,
    metric: a.metric,
    z_score: a.zScore,
    current_value: a.currentValue,
    baseline_value: a.baselineValue,
    detected_at: a.detectedAt.toISOString(),
    severity: a.severity,
    baseline_stddev: a.baselineStddev,
    sample_count: a.sampleCount,
    sample_hour: a.sampleHour.toISOString(),
    since: a.since?.toISOString() ?? null,
    project_id: a.projectId,
  };
}
