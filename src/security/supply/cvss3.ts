import type { Severity } from '../types.ts';

/**
 * CVSS v3.x base score from a vector (FIRST CVSS v3.1 specification, section 7), for advisories
 * that carry a vector but no GHSA severity word (PYSEC and other OSV sources). v4 vectors need the
 * specification's lookup tables and are not scored here: such advisories fall back to the default.
 */
const W = {
  AV: { N: 0.85, A: 0.62, L: 0.55, P: 0.2 },
  AC: { L: 0.77, H: 0.44 },
  UI: { N: 0.85, R: 0.62 },
  CIA: { H: 0.56, L: 0.22, N: 0 },
} as const;

export function cvss3BaseScore(vector: string): number | null {
  const m = new Map(
    vector
      .split('/')
      .slice(1)
      .map((part) => part.split(':') as [string, string]),
  );
  if (!/^CVSS:3\.[01]\//.test(vector)) return null;
  const scope = m.get('S');
  const av = W.AV[m.get('AV') as keyof typeof W.AV];
  const ac = W.AC[m.get('AC') as keyof typeof W.AC];
  const ui = W.UI[m.get('UI') as keyof typeof W.UI];
  const pr = { N: 0.85, L: scope === 'C' ? 0.68 : 0.62, H: scope === 'C' ? 0.5 : 0.27 }[
    m.get('PR') as 'N' | 'L' | 'H'
  ];
  const [c, i, a] = ['C', 'I', 'A'].map((k) => W.CIA[m.get(k) as keyof typeof W.CIA]);
  if ((scope !== 'U' && scope !== 'C') || [av, ac, ui, pr, c, i, a].some((x) => x === undefined))
    return null;
  const iss = 1 - (1 - (c as number)) * (1 - (i as number)) * (1 - (a as number));
  const impact = scope === 'U' ? 6.42 * iss : 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15;
  const exploitability = 8.22 * av * ac * (pr as number) * ui;
  if (impact <= 0) return 0;
  return roundUp(
    Math.min(scope === 'U' ? impact + exploitability : 1.08 * (impact + exploitability), 10),
  );
}

/** The qualitative rating of a score (CVSS v3.1 specification, section 5). */
export function severityOfScore(score: number): Severity {
  return score >= 9
    ? 'critical'
    : score >= 7
      ? 'high'
      : score >= 4
        ? 'medium'
        : score > 0
          ? 'low'
          : 'info';
}

// The specification's Roundup: the smallest one-decimal number >= x, immune to float noise.
function roundUp(x: number): number {
  const n = Math.round(x * 100_000);
  return n % 10_000 === 0 ? n / 100_000 : (Math.floor(n / 10_000) + 1) / 10;
}
