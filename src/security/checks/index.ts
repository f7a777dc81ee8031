import type { Check } from '../types.ts';
import { capabilityCheck } from './capability.ts';
import { execCheck } from './exec.ts';
import { secretsCheck } from './secrets.ts';
import { transportCheck } from './transport.ts';

/**
 * The capability-surface checks (OWASP-MCP-01, 02, 05, 07): pure over the scan context; the
 * shadow-server check is project-wide and lives in ../shadow-servers.ts.
 */
export { capabilityCheck, CAPABILITY_RULES } from './capability.ts';
export { execCheck, EXEC_RULES } from './exec.ts';
export { secretsCheck, SECRET_RULES } from './secrets.ts';
export { transportCheck, TRANSPORT_RULES } from './transport.ts';
export type { Rule } from './rule.ts';

export const surfaceChecks: readonly Check[] = [secretsCheck, capabilityCheck, execCheck, transportCheck];
