/**
 * FOR THE MERGER: this is the one place the security checks are wired in. On the `sec-scan`
 * branch every list is empty and both hooks are absent, so a scan runs its health check, stores
 * an empty result and writes no pins. After merging the check branches, fill in:
 *   checks:        the per-server checks (src/security/checks/*, poisoning/*, the OWASP-MCP-04
 *                  check closing over `await loadAdvisories(deps.config)`)
 *   projectChecks: shadowServersCheck (src/security/shadow-servers.ts)
 *   pin:           nextPin (src/security/poisoning/): called by scan-one.ts after the checks
 *   exposure:      probeExposure (src/security/exposure.ts): called by scan-one.ts for remote servers
 * supplyChainCheck(db) is per-server with the db: build it here (`deps.db` is passed for that).
 */
import type { Logger } from 'pino';
import type { Config } from '../config/types.ts';
import type { CheckTarget } from '../health/types.ts';
import type { GuardedFetch } from '../net/guarded-fetch.ts';
import type { Db } from '../store/db.ts';
import type { Check, HttpExposure, Observation, Pin, ProjectCheck } from './types.ts';

export interface RegistryDeps {
  config: Config;
  db: Db;
  logger: Logger;
}

export interface ExposureOptions {
  signal?: AbortSignal;
  /** Set for catalog (API-supplied) servers: the extra requests obey the outbound policy too. */
  guardedFetch?: GuardedFetch;
}

export interface CheckRegistry {
  checks: Check[];
  projectChecks: ProjectCheck[];
  /** The pin after a scan (trust on first use); absent: no pins are written. */
  pin?: (pin: Pin | null, observation: Observation, now: Date) => Pin;
  /** The extra HTTP requests of a remote scan (Observation.http); absent: `http` stays null. */
  exposure?: (target: CheckTarget, opts: ExposureOptions) => Promise<HttpExposure>;
}

export function buildChecks(deps: RegistryDeps): Promise<CheckRegistry> {
  void deps;
  return Promise.resolve({ checks: [], projectChecks: [] });
}
