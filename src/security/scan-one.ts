import type { Logger } from 'pino';
import { CheckCancelled } from '../health/checker.ts';
import type { HealthService } from '../health/health-service.ts';
import type { CheckTarget } from '../model/health.ts';
import { internalErrorText } from '../store/store-error.ts';
import { toObservation } from './observe.ts';
import type { CheckRegistry } from './registry.ts';
import type { Finding, HttpExposure, Observation, ScanContext } from './types.ts';

/**
 * The observing half of one server's scan (docs/security.md#how-a-scan-runs): a health check with inventory, stored and
 * announced like any other check, then, for a reachable remote server, the extra exposure
 * requests. Never throws: a server that cannot be observed is an unreachable Observation, and
 * the checks that need only the config still run on it.
 */
export async function observeTarget(
  health: HealthService,
  registry: CheckRegistry,
  target: CheckTarget,
  logger: Logger,
  signal?: AbortSignal,
): Promise<Observation> {
  let obs: Observation;
  try {
    const report = await health.check(target, signal, { inventory: true });
    obs = toObservation(report.outcome, null);
  } catch (err) {
    if (err instanceof CheckCancelled) return unreachable('scan cancelled');
    // Never the error's own message: a database error carries the statement and its parameters.
    logger.error(
      { err, server: target.name, project: target.projectId },
      'security scan: the health check failed',
    );
    return unreachable(`health check failed: ${internalErrorText(err)}`);
  }
  if (obs.reachable && target.transport !== 'stdio' && registry.exposure) {
    // The extra requests about the transport (probeExposure, wired in registry.ts).
    obs.http = await registry
      .exposure(target, { signal, guardedFetch: health.fetchFor(target) })
      .catch((err: unknown): HttpExposure | null => {
        logger.warn({ server: target.name, err }, 'security scan: exposure probe failed');
        return null;
      });
  }
  return obs;
}

/** Runs every check on one context; a check that throws is logged and reported in `failed`, never fatal. */
export function runChecks(
  registry: CheckRegistry,
  ctx: ScanContext,
  logger: Logger,
): { findings: Finding[]; failed: string[] } {
  const findings: Finding[] = [];
  const failed: string[] = [];
  for (const check of registry.checks) {
    try {
      findings.push(...check(ctx));
    } catch (err) {
      failed.push(check.name || 'anonymous check');
      logger.error({ server: ctx.target.name, check: check.name, err }, 'security check failed');
    }
  }
  return { findings, failed };
}

export function unreachable(error: string): Observation {
  return {
    reachable: false,
    error,
    serverInfo: null,
    protocolVersion: null,
    instructions: null,
    capabilities: null,
    tools: [],
    prompts: null,
    resources: null,
    http: null,
  };
}
