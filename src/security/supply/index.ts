/**
 * Supply chain (OWASP-MCP-04): which package a server runs, offline CVE lookup in OSV advisories,
 * and launch hygiene. Callers need the advisory set, the check, and optionally the refresher.
 */
export { cveIdOf } from './cve-findings.ts';
export { launchPackage, type LaunchOptions, type PackageRef } from './launch-package.ts';
export {
  DEFAULT_LIMITS,
  SHIPPED_ADVISORIES,
  buildAdvisoryDb,
  extendAdvisoryDb,
  loadAdvisories,
  parseAdvisoryBytes,
  readAdvisoryPath,
  type ReadLimits,
} from './osv-load.ts';
export { evaluateAffected, isExactVersion, type RangeOutcome } from './osv-range.ts';
export { advisoriesFor, type AdvisoryDb, type Ecosystem, type OsvRecord } from './osv-types.ts';
export type { VersionKind } from './package-spec.ts';
export {
  createAdvisoryRefresher,
  refreshAdvisories,
  type AdvisoryRefresher,
  type RefreshOptions,
  type RefreshOutcome,
} from './refresh.ts';
export { serverInfoPackage, supplyChainCheck } from './supply-check.ts';
