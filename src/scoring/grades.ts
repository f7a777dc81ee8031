/** Grades of docs/scorecards.md: thresholds on the numeric score, and ordering for caps. */
import { GRADES, type Grade } from '../model/scorecard.ts';

export { GRADES, type Grade };

const FLOORS: readonly [Grade, number][] = [
  ['A+', 96],
  ['A', 90],
  ['B', 80],
  ['C', 65],
  ['D', 50],
];

/** A+ 96-100, A 90-95, B 80-89, C 65-79, D 50-64, F below 50; a score between two bands takes the lower. */
export function gradeOf(score: number): Grade {
  for (const [grade, floor] of FLOORS) if (score >= floor) return grade;
  return 'F';
}

/** True when `a` is the same grade as `b` or worse. */
export function atOrBelow(a: Grade, b: Grade): boolean {
  return GRADES.indexOf(a) >= GRADES.indexOf(b);
}

export function isGrade(s: string): s is Grade {
  return (GRADES as readonly string[]).includes(s);
}
