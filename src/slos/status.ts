import type { FireInput } from '../model/alert.ts';
import type { SloEvaluation } from '../model/slo.ts';
import type { SloMeasure } from '../store/slo-eval-repo.ts';

/**
 * Judges one SLO (docs/slos.md): success_rate is ok at or above its target, latency_p99 at or
 * below; no sessions in the window is no_data, never a breach.
 */
export function judge(m: SloMeasure, now: Date): SloEvaluation {
  const base = {
    sloId: m.sloId,
    agentName: m.agentName,
    metric: m.metric,
    target: m.threshold,
    windowHours: m.windowHours,
    sampleSize: m.sampleSize,
    evaluatedAt: now,
    since: null,
  };
  if (m.sampleSize === 0) return { ...base, currentValue: null, status: 'no_data' };
  if (m.metric === 'latency_p99') {
    const p99 = m.p99Ms ?? 0;
    return { ...base, currentValue: round(p99), status: p99 <= m.threshold ? 'ok' : 'breached' };
  }
  const rate = (100 * m.good) / m.sampleSize;
  return { ...base, currentValue: round(rate), status: rate >= m.threshold ? 'ok' : 'breached' };
}

/** The slo_breached alert for an SLO that just entered breach (docs/slos.md#alerts). */
export function breachAlert(projectId: string, item: SloEvaluation): FireInput {
  const latency = item.metric === 'latency_p99';
  const what = latency ? 'p99 session duration' : 'success rate';
  const unit = (v: number | null) => (latency ? `${v ?? 0} ms` : `${v ?? 0}%`);
  return {
    type: 'slo_breached',
    severity: 'critical',
    title: `SLO breached: ${item.agentName} ${what}`,
    message: `${item.agentName}: ${what} ${unit(item.currentValue)} over the last ${item.windowHours} h is ${latency ? 'above' : 'below'} the ${unit(item.target)} target (${item.sampleSize} session${item.sampleSize === 1 ? '' : 's'}).`,
    projectId,
    agentName: item.agentName,
    dedupKey: breachKey(item.sloId),
    dedupScope: 'open',
    fields: {
      slo_id: item.sloId,
      metric: item.metric,
      target: item.target,
      current_value: item.currentValue,
      sample_size: item.sampleSize,
      window_hours: item.windowHours,
    },
  };
}

export const breachKey = (sloId: string) => `slo_breached:${sloId}`;

/** Four decimals: enough for a percentage of millions of sessions, short enough to read. */
function round(v: number): number {
  return Math.round(v * 1e4) / 1e4;
}
