/** How the anomalies page words metrics and values (docs/anomalies.md#what-is-measured). */

export const METRIC_LABEL: Record<string, string> = {
  error_rate: 'error rate',
  latency_ms: 'mean latency',
};

/** The value a chart plots: error rates as percentages, latencies in ms. */
export const scale = (metric: string, v: number) => (metric === 'error_rate' ? v * 100 : v);
export const unit = (metric: string) => (metric === 'error_rate' ? '%' : 'ms');

export function formatValue(metric: string, v: number): string {
  return metric === 'error_rate' ? `${+(v * 100).toFixed(1)}%` : `${+v.toFixed(1)} ms`;
}

/**
 * What a z divides by: the baseline's standard deviation, or the floor when that is smaller
 * (docs/anomalies.md). It is recovered from the record itself, (current − mean) / z, so the page
 * needs no copy of the floors; a z of 0 is never anomalous.
 */
export function divisor(a: {
  zScore: number;
  currentValue: number;
  baselineValue: number;
  baselineStddev: number;
}): number {
  return a.zScore !== 0 ? (a.currentValue - a.baselineValue) / a.zScore : a.baselineStddev || 1;
}
