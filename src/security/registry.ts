/**
 * The one place the security checks are wired in: the per-server checks (secrets, capability,
 * command execution, transport: src/security/checks/; poisoning, shadowing, rug pull:
 * src/security/poisoning/; supply chain and CVEs over the OSV advisories: src/security/supply/),
 * the project-wide check (servers seen in spans but not configured), trust-on-first-use pinning
 * and the extra requests of a remote scan. Tests build a ScanService with their own registry.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/types.ts';
import type { CheckTarget } from '../model/health.ts';
import type { GuardedFetch } from '../net/guarded-fetch.ts';
import type { Db } from '../store/db.ts';
import { surfaceChecks } from './checks/index.ts';
import { probeExposure } from './exposure.ts';
import { nextPin, poisoningCheck, rugPullCheck, shadowingCheck } from './poisoning/index.ts';
import { shadowServersCheck } from './shadow-servers.ts';
import { createAdvisoryRefresher, loadAdvisories, supplyChainCheck } from './supply/index.ts';
import type { Check, HttpExposure, Observation, Pin, ProjectCheck } from './types.ts';

export interface RegistryDeps {
  config: Config;
  db: Db;
  logger: Logger;
  /** The process's outbound-policy fetch: advisory refreshes go through it. */
  guardedFetch: GuardedFetch;
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
  /** Runs before each scan run (the advisory refresh, when security.advisories_url is set). */
  prepare?: (now: Date) => Promise<void>;
}

export async function buildChecks(deps: RegistryDeps): Promise<CheckRegistry> {
  const { config, logger } = deps;
  const advisories = createAdvisoryRefresher(
    config.security,
    deps.guardedFetch,
    await loadAdvisories(config.security),
  );
  // The advisory set may be replaced by a refresh between runs: the check reads the current one.
  const supply: Check = (ctx) => supplyChainCheck(advisories.current())(ctx);
  return {
    checks: [...surfaceChecks, poisoningCheck, shadowingCheck, rugPullCheck, supply],
    projectChecks: [shadowServersCheck],
    pin: nextPin,
    exposure: (target, opts) =>
      probeExposure(target, {
        ...opts,
        timeoutMs: Math.round(target.timeoutSeconds * 1000),
        healthOk: true,
      }),
    prepare: async (now) => {
      const outcome = await advisories.refreshIfDue(now);
      if (outcome?.status === 'failed')
        logger.warn(
          { error: outcome.error },
          'security advisories: refresh failed, the previous set stays',
        );
      if (outcome?.status === 'updated')
        logger.info({ records: outcome.records }, 'security advisories refreshed');
    },
  };
}
