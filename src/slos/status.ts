import type { FireInput } from '../model/alert.ts';
import type { SloMeasure } from '../store/slo-eval-repo.ts';

export type SloStatus = 'ok' | 'breached' | 'no_data';

/** An SLO status item (docs/slos.md), as REST returns it. */
export interface SloStatusItem {
  slo_id: string;
  agent_name: string;
  metric: string;
  /** The threshold: a percentage for success_rate, milliseconds for latency_p99. */
  target: number;
  /** Percentage of good sessions, or the p99 session duration in ms; null with no sessions. */
  current_value: number | null;
  window_hours: number;
  status: SloStatus;
  sample_size: number;
  evaluated_at: string;
}

/**
 * Judges one SLO (docs/slos.md): success_rate is ok at or above its target, latency_p99 at or
 * below; no sessions in the window is no_data, never a breach.
 */
export function judge(m: SloMeasure, now: Date): SloStatusItem {
  const base = {
    slo_id: m.sloId,
    agent_name: m.agentName,
    metric: m.metric,
    target: m.threshold,
    window_hours: m.windowHours,
    sample_size: m.sampleSize,
    evaluated_at: now.toISOString(),
  };
  if (m.sampleSize === 0) return { ...base, current_value: null, status: 'no_data' };
  if (m.metric === 'latency_p99') {
    const p99 = m.p99Ms ?? 0;
    return { ...base, current_value: round(p99), status: p99 <= m.threshold ? 'ok' : 'breached' };
  }
  const rate = (100 * m.good) / m.sampleSize;
  return { ...base, current_value: round(rate), status: rate >= m.threshold ? 'ok' : 'breached' };
}

/** The slo_breached alert for an SLO that just entered breach (docs/slos.md#alerts). */
export function breachAlert(projectId: string, item: SloStatusItem): FireInput {
  const latency = item.metric === 'latency_p99';
  const what = latency ? 'p99 session duration' : 'success rate';
  const unit = (v: number | null) => (latency ? `${v ?? 0} ms` : `${v ?? 0}%`);
  return {
    type: 'slo_breached',
    severity: 'critical',
    title: `SLO breached: ${item.agent_name} ${what}`,
    message: `${item.agent_name}: ${what} ${unit(item.current_value)} over the last ${item.window_hours} h is ${latency ? 'above' : 'below'} the ${unit(item.target)} target (${item.sample_size} session${item.sample_size === 1 ? '' : 's'}).`,
    projectId,
    agentName: item.agent_name,
    dedupKey: breachKey(item.slo_id),
    dedupScope: 'open',
    fields: {
      slo_id: item.slo_id,
      metric: item.metric,
      target: item.target,
      current_value: item.current_value,
      sample_size: item.sample_size,
      window_hours: item.window_hours,
    },
  };
}

export const breachKey = (sloId: string) => `slo_breached:${sloId}`;

/** Four decimals: enough for a percentage of millions of sessions, short enough to read. */
function round(v: number): number {
  return Math.round(v * 1e4) / 1e4;
}
