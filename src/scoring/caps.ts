import type { ScoreInputs } from '../store/scoring-repo.ts';
import type { ScanSummary } from '../store/security-repo.ts';
import { ABOVE_5000_MS, bucketMs } from './dimensions.ts';
import type { Cap, Grade } from '../model/scorecard.ts';

/** The hard caps of docs/scorecards.md#hard-caps, in the spec's order; each holds or not on the stored aggregates. */
export type { Cap };

export interface CapInputs {
  inputs: ScoreInputs;
  scan: ScanSummary | null;
  noAuth: boolean;
}

export function holdingCaps({ inputs: i, scan, noAuth }: CapInputs): Cap[] {
  const caps: Cap[] = [];
  const add = (reason: string, maxGrade: Grade, description: string) =>
    caps.push({ reason, maxGrade, description });
  if (i.consecutiveFailures >= 10)
    add(
      'consecutive_failures',
      'F',
      `${i.consecutiveFailures} consecutive failed health checks (10 or more)`,
    );
  if (scan && scan.criticalCves > 0)
    add(
      'critical_cve',
      'F',
      `${scan.criticalCves} active critical CVE(s) in the latest security scan`,
    );
  if (scan && scan.poisoning > 0)
    add(
      'tool_poisoning',
      'F',
      `confirmed tool poisoning in the latest security scan (${scan.poisoning} finding(s))`,
    );
  if (i.checks7d > 0 && i.checks7d - i.downChecks7d < 0.9 * i.checks7d) {
    const uptime = Math.round((10_000 * (i.checks7d - i.downChecks7d)) / i.checks7d) / 100;
    add('low_uptime', 'D', `uptime ${uptime}% over 7 days (below 90%)`);
  }
  if (noAuth)
    add(
      'no_authentication',
      'C',
      'no authentication configured (no auth header, no credential in the environment)',
    );
  if (scan && scan.critical + scan.high > 0)
    add(
      'critical_or_high_finding',
      'B',
      `${scan.critical} critical and ${scan.high} high finding(s) in the latest security scan`,
    );
  if (i.p99Bucket24h !== null && i.p99Bucket24h >= ABOVE_5000_MS) {
    add(
      'slow_p99',
      'B',
      `health-check p99 above 5000 ms over 24 hours (up to ${Math.round(bucketMs(i.p99Bucket24h))} ms)`,
    );
  }
  return caps;
}
