import type { ScoreInputs } from '../store/scoring-repo.ts';
import type { ScanSummary } from '../store/security-repo.ts';
import { holdingCaps, type Cap } from './caps.ts';
import {
  availability,
  performance,
  reliability,
  round,
  schemaStability,
  security,
  type Dimension,
} from './dimensions.ts';
import { GRADES, atOrBelow, gradeOf, type Grade } from './grades.ts';

/** A scorecard (docs/scorecards.md): five weighted dimensions, a grade, and the cap that lowered it. */
export interface Scorecard {
  projectId: string;
  serverName: string;
  grade: Grade;
  score: number;
  dimensions: Dimension[];
  capApplied: Cap | null;
  computedAt: Date;
}

/**
 * Pure: the weighted sum gives the score and its grade; every cap that holds limits the grade and
 * the lowest wins (the first in spec order on a tie). `cap_applied` names that cap when it is at or
 * below the numeric grade, i.e. when it decides the grade.
 */
export function computeScorecard(
  inputs: ScoreInputs,
  scan: ScanSummary | null,
  noAuth: boolean,
  now: Date,
): Scorecard {
  const dimensions = [
    availability(inputs),
    security(scan, noAuth),
    reliability(inputs),
    schemaStability(inputs),
    performance(inputs),
  ];
  const score = round(dimensions.reduce((sum, d) => sum + d.weightedScore, 0));
  const numeric = gradeOf(score);
  const worst = holdingCaps({ inputs, scan, noAuth }).reduce<Cap | null>(
    (w, c) => (w === null || GRADES.indexOf(c.maxGrade) > GRADES.indexOf(w.maxGrade) ? c : w),
    null,
  );
  const capApplied = worst && atOrBelow(worst.maxGrade, numeric) ? worst : null;
  return {
    projectId: inputs.projectId,
    serverName: inputs.serverName,
    grade: capApplied ? capApplied.maxGrade : numeric,
    score,
    dimensions,
    capApplied,
    computedAt: now,
  };
}

/** The REST shape of docs/scorecards.md (snake_case). */
export function toScorecardJson(s: Scorecard): Record<string, unknown> {
  return {
    server_name: s.serverName,
    grade: s.grade,
    score: s.score,
    dimensions: s.dimensions.map((d) => ({
      name: d.name,
      weight: d.weight,
      raw_score: d.rawScore,
      weighted_score: d.weightedScore,
      notes: d.notes,
    })),
    cap_applied: s.capApplied
      ? {
          reason: s.capApplied.reason,
          max_grade: s.capApplied.maxGrade,
          description: s.capApplied.description,
        }
      : null,
    computed_at: s.computedAt.toISOString(),
  };
}
