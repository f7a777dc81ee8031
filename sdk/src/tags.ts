/**
 * Session health tags (spec §3.3), most severe first (decisions §4): the SDK tags its spans with
 * them and the server ranks them in the same order to tag a session.
 */
export const HEALTH_TAGS = [
  'loop_detected',
  'budget_exceeded',
  'circuit_breaker_open',
  'timeout',
  'schema_drift',
  'tool_failure',
  'budget_warning',
  'success_with_fallback',
  'success',
] as const;

export type HealthTag = (typeof HEALTH_TAGS)[number];

/** The more severe of two tags (a null tag loses to any tag). */
export function worseTag(a: HealthTag | null, b: HealthTag | null): HealthTag | null {
  if (a === null) return b;
  if (b === null) return a;
  return HEALTH_TAGS.indexOf(a) <= HEALTH_TAGS.indexOf(b) ? a : b;
}
