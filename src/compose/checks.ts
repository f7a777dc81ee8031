import type { EventBus } from '../live/bus.ts';
import { HealthService } from '../health/health-service.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { Outbound } from '../net/guarded-fetch.ts';
import { ScoringService } from '../scoring/scoring-service.ts';
import { buildChecks } from '../security/registry.ts';
import { ScanService } from '../security/scan-service.ts';
import type { Base } from './core.ts';

/**
 * Health checks of MCP servers (docs/health.md), stored and published as `health:check`. `outbound`
 * is the process's one policy and guarded pool for API-supplied URLs
 * (docs/health.md#catalog-servers-and-the-outbound-url-policy).
 */
export function createHealth(
  { config, store, logger }: Base,
  d: { bus: EventBus; metrics: Metrics; outbound: Outbound },
): HealthService {
  return new HealthService({
    config,
    db: store.db,
    bus: d.bus,
    metrics: d.metrics,
    logger,
    guardedFetch: d.outbound.fetch,
  });
}

/** Security scans (docs/security.md), each starting with a health check of the server. */
export async function createSecurity(
  { config, store, logger }: Base,
  d: { bus: EventBus; health: HealthService; outbound: Outbound },
): Promise<ScanService> {
  return new ScanService({
    config,
    db: store.db,
    bus: d.bus,
    logger,
    health: d.health,
    registry: await buildChecks({ config, db: store.db, logger, guardedFetch: d.outbound.fetch }),
  });
}

/** Scorecards (docs/scorecards.md), graded from the stored checks and scans. */
export function createScoring({ store }: Base, d: { health: HealthService }): ScoringService {
  return new ScoringService({ db: store.db, health: d.health });
}
