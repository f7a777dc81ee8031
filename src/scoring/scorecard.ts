import type { ScoreInputs } from '../store/scoring-repo.ts';
import type { ScanSummary } from '../store/security-repo.ts';
import type { Cap, Scorecard } from '../model/scorecard.ts';
import { toScorecardJson } from '../model/scorecard.ts';
import { holdingCaps } from './caps.ts';
import {
  availability,
  performance,
  reliability,
  round,
  schemaStability,
  security,
} from './dimensions.ts';
import { GRADES, atOrBelow, gradeOf } from './grades.ts';

export { toScorecardJson, type Scorecard };

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
