/** Scorecards as services return them (docs/scorecards.md), and the JSON the API and the CLI print. */

export type Grade = 'A+' | 'A' | 'B' | 'C' | 'D' | 'F';

/** Best first; a grade's index is how far below A+ it is. */
export const GRADES: readonly Grade[] = ['A+', 'A', 'B', 'C', 'D', 'F'];

/** One of the five weighted dimensions (docs/scorecards.md#dimensions). */
export interface Dimension {
  name: 'availability' | 'security' | 'reliability' | 'schema_stability' | 'performance';
  weight: number;
  rawScore: number;
  weightedScore: number;
  notes: string | null;
}

/** A hard cap (docs/scorecards.md#hard-caps): the best grade a server may have while it holds. */
export interface Cap {
  reason: string;
  maxGrade: Grade;
  description: string;
}

/** A scorecard: five weighted dimensions, a grade, and the cap that lowered it. */
export interface Scorecard {
  projectId: string;
  serverName: string;
  grade: Grade;
  score: number;
  dimensions: Dimension[];
  capApplied: Cap | null;
  computedAt: Date;
}

/** The REST shape of docs/scorecards.md (snake_case); `spyglass scorecard --json` prints the same. */
export function toScorecardJson(s: Scorecard) {
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
