/**
 * Session health tags, most severe first (docs/sessions in docs/api.md): spans carry them and the
 * server ranks them in this order to tag a session. The agent SDK (sdk/src/tags.ts) sends the same
 * values; test/sdk/contract.test.ts holds the two lists equal.
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
