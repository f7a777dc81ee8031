import { describe, expect, it } from 'vitest';
import { computeScorecard } from '../../src/scoring/scorecard.ts';
import { gradeOf } from '../../src/scoring/grades.ts';
import type { ScoreInputs } from '../../src/store/scoring-repo.ts';
import type { ScanSummary } from '../../src/store/security-repo.ts';

/** Grade bands and hard caps of docs/scorecards.md, on the pure formulas (stored history: scorecard.test.ts). */
const NOW = new Date('2026-03-01T12:00:00Z');

/** A server that scores 100 on every dimension but security; `scan` decides security. */
function inputs(over: Partial<ScoreInputs> = {}): ScoreInputs {
  return {
    projectId: 'default',
    serverName: 's',
    checks7d: 100,
    downChecks7d: 0,
    consecutiveFailures: 0,
    p99Bucket24h: 120,
    p99Bucket30d: 120,
    driftCompatible: 0,
    driftWarning: 0,
    driftBreaking: 0,
    calls: 0,
    failedCalls: 0,
    callP50Ms: null,
    callP99Ms: null,
    ...over,
  };
}

function scan(over: Partial<ScanSummary> = {}): ScanSummary {
  return {
    projectId: 'default',
    serverName: 's',
    scanId: 'x',
    scannedAt: NOW,
    critical: 0,
    high: 0,
    medium: 0,
    low: 0,
    criticalCves: 0,
    poisoning: 0,
    noAuth: 0,
    ...over,
  };
}

describe('grade bands', () => {
  it.each([
    [100, 'A+'],
    [96, 'A+'],
    [95.99, 'A'],
    [95, 'A'],
    [90, 'A'],
    [89.99, 'B'],
    [89, 'B'],
    [80, 'B'],
    [79.99, 'C'],
    [79, 'C'],
    [65, 'C'],
    [64.99, 'D'],
    [64, 'D'],
    [50, 'D'],
    [49.99, 'F'],
    [49, 'F'],
    [0, 'F'],
  ])('score %s is %s', (score, grade) => {
    expect(gradeOf(score)).toBe(grade);
  });

  // The same boundaries reached through the weighted sum: security alone moves the score by 0.25
  // per point, so security raw 84 / 80 / 40 / 36 / ... lands exactly on each side of a boundary.
  it.each([
    // [medium findings, low findings, score, grade]: 100 - 8m - 3l is the security raw score
    [0, 0, 100, 'A+'],
    [2, 0, 96, 'A+'], // security 84 → 75 + 21 = 96
    [2, 1, 95.25, 'A'], // security 81 → 95.25
    [5, 0, 90, 'A'], // security 60 → 90
    [5, 1, 89.25, 'B'], // security 57 → 89.25
    [10, 0, 80, 'B'], // security 20 → 80
    [10, 2, 78.5, 'C'], // security 14 → 78.5
  ])('%s medium and %s low findings: score %s, grade %s', (medium, low, score, grade) => {
    const card = computeScorecard(inputs(), scan({ medium, low }), false, NOW);
    expect(card.score).toBe(score);
    expect(card.grade).toBe(grade);
    expect(card.capApplied).toBeNull();
  });

  it('never scanned: security 0, so a perfect server scores 75 (C)', () => {
    const card = computeScorecard(inputs(), null, false, NOW);
    expect(card.dimensions.find((d) => d.name === 'security')).toEqual({
      name: 'security',
      weight: 0.25,
      rawScore: 0,
      weightedScore: 0,
      notes: 'never scanned',
    });
    expect([card.score, card.grade]).toEqual([75, 'C']);
  });

  // Never scanned (security 0, so 75 at most), then performance 0 (-10, ratio 1.05^23 ≈ 3.07),
  // four BREAKING drifts (-15) and one failed call in 40 (reliability 95, -1).
  const slow = { p99Bucket24h: 120 + 23 };
  it.each([
    ['performance 0', inputs(slow), 65, 'C'],
    [
      'performance 0, 1 failed call in 40',
      inputs({ ...slow, calls: 40, failedCalls: 1, callP50Ms: 10, callP99Ms: 10 }),
      64,
      'D',
    ],
    ['performance 0, schema 0', inputs({ ...slow, driftBreaking: 4 }), 50, 'D'],
    [
      'performance 0, schema 0, 1 failed call in 40',
      inputs({
        ...slow,
        driftBreaking: 4,
        calls: 40,
        failedCalls: 1,
        callP50Ms: 10,
        callP99Ms: 10,
      }),
      49,
      'F',
    ],
  ])('never scanned, %s: score %s, grade %s', (_what, i, score, grade) => {
    const card = computeScorecard(i, null, false, NOW);
    expect(card.score).toBe(score);
    expect(card.grade).toBe(grade);
    expect(card.capApplied).toBeNull();
  });
});

describe('hard caps', () => {
  const clean = scan();
  it.each([
    ['consecutive_failures', 'F', inputs({ consecutiveFailures: 10 }), clean, false],
    ['critical_cve', 'F', inputs(), scan({ critical: 1, criticalCves: 1 }), false],
    ['tool_poisoning', 'F', inputs(), scan({ poisoning: 1 }), false],
    ['low_uptime', 'D', inputs({ checks7d: 100, downChecks7d: 11 }), clean, false],
    ['no_authentication', 'C', inputs(), clean, true],
    ['critical_or_high_finding', 'B', inputs(), scan({ high: 1 }), false],
    ['slow_p99', 'B', inputs({ p99Bucket24h: 201 }), clean, false],
  ] as const)('%s alone caps at %s', (reason, maxGrade, i, s, noAuth) => {
    const card = computeScorecard(i, s, noAuth, NOW);
    expect(card.capApplied).toEqual({ reason, maxGrade, description: expect.any(String) });
    expect(card.grade).toBe(maxGrade);
  });

  it('just inside each threshold no cap holds', () => {
    for (const [i, s] of [
      [inputs({ consecutiveFailures: 9 }), clean],
      [inputs({ checks7d: 100, downChecks7d: 10 }), clean],
      [inputs({ p99Bucket24h: 200 }), clean], // up to exactly 5000 ms
      [inputs(), scan({ medium: 1 })],
    ] as const) {
      expect(computeScorecard(i, s, false, NOW).capApplied).toBeNull();
    }
  });

  it('combined: the lowest cap wins, the first in spec order on a tie', () => {
    const all = computeScorecard(
      inputs({ consecutiveFailures: 12, downChecks7d: 40, p99Bucket24h: 212, p99Bucket30d: 212 }),
      scan({ critical: 1, criticalCves: 1, poisoning: 1, high: 2 }),
      true,
      NOW,
    );
    expect(all.capApplied?.reason).toBe('consecutive_failures');
    expect(all.grade).toBe('F');
    const dc = computeScorecard(
      inputs({ downChecks7d: 20, p99Bucket24h: 212, p99Bucket30d: 212 }),
      scan({ high: 1 }),
      true,
      NOW,
    );
    expect([dc.capApplied?.reason, dc.grade]).toEqual(['low_uptime', 'D']);
    const cb = computeScorecard(
      inputs({ p99Bucket24h: 212, p99Bucket30d: 212 }),
      scan({ high: 1 }),
      true,
      NOW,
    );
    expect([cb.capApplied?.reason, cb.grade]).toEqual(['no_authentication', 'C']);
    const bb = computeScorecard(
      inputs({ p99Bucket24h: 212, p99Bucket30d: 212 }),
      scan({ high: 1 }),
      false,
      NOW,
    );
    expect([bb.capApplied?.reason, bb.grade]).toEqual(['critical_or_high_finding', 'B']);
  });

  it('a cap above the numeric grade does not apply', () => {
    // never scanned and availability 0: score 45, F; the D cap of low uptime changes nothing
    const card = computeScorecard(
      inputs({ downChecks7d: 100, p99Bucket24h: 212, p99Bucket30d: 212 }),
      null,
      false,
      NOW,
    );
    expect([card.score, card.grade, card.capApplied]).toEqual([45, 'F', null]);
    const slowOnly = computeScorecard(
      inputs({ driftBreaking: 4, p99Bucket24h: 212, p99Bucket30d: 212 }),
      scan({ medium: 5 }),
      false,
      NOW,
    );
    expect([slowOnly.score, slowOnly.grade, slowOnly.capApplied]).toEqual([75, 'C', null]);
  });
});
