import {
  CRITICAL_Z,
  STDDEV_FLOOR,
  WARNING_Z,
  type AnomalySeverity,
  type Metric,
} from '../model/anomaly.ts';

/** The pure maths and episode rules of the detector (docs/anomalies.md), kept apart to test by hand. */

export interface Scored {
  zScore: number;
  severity: AnomalySeverity | null;
}

/** z = (current − mean) / max(stddev, floor); severity from |z|, so a drop is reported too. */
export function score(metric: Metric, current: number, mean: number, stddev: number): Scored {
  const zScore = (current - mean) / Math.max(stddev, STDDEV_FLOOR[metric]);
  return { zScore, severity: severityOf(Math.abs(zScore)) };
}

export function severityOf(absZ: number): AnomalySeverity | null {
  if (absZ >= CRITICAL_Z) return 'critical';
  if (absZ >= WARNING_Z) return 'warning';
  return null;
}

/** What the detector does about alerts for one metric after an evaluation. */
export interface EpisodeStep {
  /** Close the open alert of the key first (the episode ended, or a warning escalates). */
  resolve: boolean;
  /** Fire this severity's alert. */
  fire: AnomalySeverity | null;
  /** The episode afterwards: the highest severity alerted, or null when none is open. */
  alerted: AnomalySeverity | null;
}

/**
 * An episode is a run of evaluations where the metric is worse than usual (z ≥ 2: more errors or
 * slower). It alerts once at its severity; an escalation to critical fires the critical alert as
 * well (closing the warning first, since one alert per key can be open); falling back to warning
 * fires nothing. It ends when z < 2 or the tool has no result, and resolves its alert, so the next
 * episode alerts again. An improvement (z ≤ −2) is listed as an anomaly but never alerts.
 */
export function nextEpisode(alerted: AnomalySeverity | null, zScore: number | null): EpisodeStep {
  const worse = zScore !== null && zScore >= WARNING_Z ? severityOf(zScore) : null;
  if (worse === null) return { resolve: alerted !== null, fire: null, alerted: null };
  if (alerted === null) return { resolve: false, fire: worse, alerted: worse };
  if (alerted === 'warning' && worse === 'critical')
    return { resolve: true, fire: 'critical', alerted: 'critical' };
  return { resolve: false, fire: null, alerted };
}
