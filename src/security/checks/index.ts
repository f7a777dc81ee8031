import type { Check } from '../types.ts';
import { CAPABILITY_RULES, capabilityCheck } from './capability.ts';
import { EXEC_RULES, execCheck } from './exec.ts';
import type { Rule } from './rule.ts';
import { SECRET_RULES, secretsCheck } from './secrets.ts';
import { TRANSPORT_RULES, transportCheck } from './transport.ts';

/**
 * The capability-surface checks (OWASP-MCP-01, 02, 05, 07): pure over the scan context; the
 * shadow-server check is project-wide and lives in ../shadow-servers.ts.
 */
export { capabilityCheck, CAPABILITY_RULES } from './capability.ts';
export { execCheck, EXEC_RULES } from './exec.ts';
export { secretsCheck, SECRET_RULES } from './secrets.ts';
export { transportCheck, TRANSPORT_RULES } from './transport.ts';
export type { Rule } from './rule.ts';

export const surfaceChecks: readonly Check[] = [
  secretsCheck,
  capabilityCheck,
  execCheck,
  transportCheck,
];

/** Every rule these checks can report (docs and SARIF list them); the shadow rule is SHADOW_RULE. */
export const SURFACE_RULES: readonly Rule[] = [
  ...Object.values(SECRET_RULES),
  ...Object.values(CAPABILITY_RULES),
  ...Object.values(EXEC_RULES),
  ...Object.values(TRANSPORT_RULES),
];
