/**
 * Tool poisoning, cross-server shadowing and rug pull (OWASP-MCP-03): checks over what a scan
 * observed, and the trust-on-first-use pin they compare against.
 */
export { poisoningCheck } from './poisoning-check.ts';
export { shadowingCheck, SHADOWING_RULES } from './shadowing.ts';
export { rugPullCheck, RUG_PULL_RULES } from './rug-pull.ts';
export { nextPin, hashTool, pinTool } from './pin.ts';
export { scanText } from './scan-text.ts';
export { RULES, type RuleMeta } from './rules.ts';
