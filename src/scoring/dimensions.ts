import type { ScoreInputs } from '../store/scoring-repo.ts';
import type { ScanSummary } from '../store/security-repo.ts';

import type { Dimension } from '../model/scorecard.ts';

/** The five dimensions and their formulas (docs/scorecards.md#dimensions), as pure functions of the stored aggregates. */
export type { Dimension };

/** The latency a bucket of the hourly rollup stands for: its upper edge, 5000 × 1.05^(k−200) ms. */
export function bucketMs(bucket: number): number {
  return 5000 * 1.05 ** (bucket - 200);
}

/** The first bucket whose latencies are all above 5000 ms. */
export const ABOVE_5000_MS = 201;

export function availability(i: Pick<ScoreInputs, 'checks7d' | 'downChecks7d'>): Dimension {
  if (i.checks7d === 0) return dim('availability', 0.3, 0, 'no health checks in the last 7 days');
  const up = i.checks7d - i.downChecks7d;
  return dim(
    'availability',
    0.3,
    (100 * up) / i.checks7d,
    `${up} of ${i.checks7d} checks not down in 7 days`,
  );
}

/** Deductions per finding of the latest scan (docs/scorecards.md#dimensions); 0 when no scan ever ran. */
export function security(scan: ScanSummary | null, noAuth: boolean): Dimension {
  if (!scan) return dim('security', 0.25, 0, 'never scanned');
  const parts: [number, number, string][] = [
    [scan.critical, 25, 'critical'],
    [scan.poisoning, 25, 'confirmed tool poisoning'],
    [scan.high, 15, 'high'],
    [scan.medium, 8, 'medium'],
    [scan.low, 3, 'low'],
    [noAuth ? 1 : 0, 10, 'no authentication'],
  ];
  const deduction = parts.reduce((sum, [n, points]) => sum + n * points, 0);
  const said = parts.filter(([n]) => n > 0).map(([n, points, what]) => `${what} ${n}×${points}`);
  return dim(
    'security',
    0.25,
    Math.max(0, 100 - deduction),
    `scan of ${scan.scannedAt.toISOString()}: ${said.length ? `minus ${said.join(', ')}` : 'no deductions'}`,
  );
}

/** 100 × (1 − error_rate / 0.5), floored at 0, minus up to 20 as p99/p50 of tool calls rises from 3 to 10. */
export function reliability(
  i: Pick<ScoreInputs, 'calls' | 'failedCalls' | 'callP50Ms' | 'callP99Ms'>,
): Dimension {
  if (i.calls === 0) return dim('reliability', 0.2, 100, 'no tool calls in the last 7 days');
  const errorRate = i.failedCalls / i.calls;
  const base = Math.max(0, 100 * (1 - errorRate / 0.5));
  const p50 = i.callP50Ms ?? 0;
  const p99 = i.callP99Ms ?? 0;
  const ratio = p50 > 0 ? p99 / p50 : 1;
  const penalty = 20 * clamp((ratio - 3) / 7, 0, 1);
  const note = `error rate ${round(errorRate * 100)}% of ${i.calls} calls, p99/p50 ${round(ratio)}`;
  return dim('reliability', 0.2, Math.max(0, base - penalty), note);
}

/** 100 minus 10 per COMPATIBLE, 20 per WARNING and 30 per BREAKING drift event in 7 days. */
export function schemaStability(
  i: Pick<ScoreInputs, 'driftCompatible' | 'driftWarning' | 'driftBreaking'>,
): Dimension {
  const raw = Math.max(
    0,
    100 - 10 * i.driftCompatible - 20 * i.driftWarning - 30 * i.driftBreaking,
  );
  const note = `${i.driftBreaking} BREAKING, ${i.driftWarning} WARNING, ${i.driftCompatible} COMPATIBLE drift events in 7 days`;
  return dim('schema_stability', 0.15, raw, note);
}

/** 100 while the 24 h health-check p99 is within 1.2× its 30-day p99, falling linearly to 0 at 3×. */
export function performance(i: Pick<ScoreInputs, 'p99Bucket24h' | 'p99Bucket30d'>): Dimension {
  if (i.p99Bucket24h === null || i.p99Bucket30d === null)
    return dim('performance', 0.1, 100, 'no health-check latency in the last 24 hours');
  const ratio = 1.05 ** (i.p99Bucket24h - i.p99Bucket30d);
  const raw = ratio <= 1.2 ? 100 : ratio >= 3 ? 0 : (100 * (3 - ratio)) / 1.8;
  return dim(
    'performance',
    0.1,
    raw,
    `p99 ${round(bucketMs(i.p99Bucket24h))} ms in 24 h, ${round(ratio)}× the 30-day p99 ${round(bucketMs(i.p99Bucket30d))} ms`,
  );
}

function dim(
  name: Dimension['name'],
  weight: number,
  raw: number,
  notes: string | null,
): Dimension {
  const rawScore = round(raw);
  return { name, weight, rawScore, weightedScore: round(rawScore * weight), notes };
}

export function round(n: number): number {
  return Math.round(n * 100) / 100;
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, n));
}
