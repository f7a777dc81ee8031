import type { Base } from '../compose/core.ts';
import type { CliIo } from './io.ts';

/**
 * The services a command runs on the configured database (no server needed), each command building
 * only what it uses from the capability factories of src/compose/: never the writer, the live hub,
 * the limiter or the cluster's live relay. Every import is dynamic, so that `--help` and commands
 * given --url load none of it.
 */
export type Kit<K> = (b: Base) => Promise<K & { close(): Promise<void> }>;

/**
 * Opens the configured database (io's environment and working directory) for the duration of `fn`,
 * with the services `kit` builds; logs go to io's stderr.
 */
export async function withLocal<K, T>(
  io: CliIo,
  kit: Kit<K>,
  fn: (s: K & Base) => Promise<T>,
): Promise<T> {
  const { loadConfig } = await import('../config/load-config.ts');
  const { createLogger } = await import('../logger.ts');
  const config = loadConfig(io.env, io.cwd);
  const level = io.env.SPYGLASS_LOG_LEVEL ?? 'warn';
  const logger = io.ownsProcess ? createLogger(level) : createLogger(level, io.stderr);
  const openStore = io.openStore ?? (await import('../store/open-store.ts')).openStore;
  if (io.ownsProcess) {
    // A CLI command runs one per process: this is its process entry for the database, so the
    // process-wide postgres.js guard is installed here (src/store/postgres-guard.ts); both back
    // ends go through postgres.js, the embedded one over its thread. In-process runs (tests)
    // leave the process's listeners alone.
    const { guardPostgresDriver } = await import('../store/postgres-guard.ts');
    guardPostgresDriver(() => {});
  }
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 2,
    onInfo: (msg) => io.stderr.write(`spyglass: ${msg}\n`),
  });
  const base: Base = { config, store, logger };
  try {
    const services = await kit(base);
    try {
      return await fn({ ...base, ...services });
    } finally {
      await services.close();
    }
  } finally {
    await store.close();
  }
}

const nothing = async () => {};

/** `spyglass sessions`: the store's sessions and span trees. */
export const sessionsKit = async ({ store }: Base) => {
  const { SessionsService } = await import('../sessions/sessions-service.ts');
  return { sessions: new SessionsService(store.db), close: nothing };
};

/** The audit log alone, for services that record their writes. */
async function auditOf({ store, logger }: Base) {
  const { AuditLog } = await import('../audit/audit-log.ts');
  return new AuditLog(store.db, logger);
}

/** `spyglass costs`: the breakdown reads the rollups only, so the price book is not loaded. */
export const costsKit = async (b: Base) => {
  const { CostService } = await import('../costs/cost-service.ts');
  const audit = await auditOf(b);
  const costs = new CostService({ db: b.store.db, audit, config: b.config });
  return { costs, close: () => audit.close() };
};

/** `spyglass prevention`: prevention configs, their changes audited. */
export const preventionKit = async (b: Base) => {
  const { PreventionService } = await import('../prevention/config-service.ts');
  const audit = await auditOf(b);
  return {
    prevention: new PreventionService({ db: b.store.db, audit }),
    close: () => audit.close(),
  };
};

/**
 * `spyglass api-key`: keys and the audit log. With Redis, a revocation is announced to the running
 * instances as `serve` announces it (docs/api.md#cache-invalidation-across-instances).
 */
export const apiKeyKit = async (b: Base) => {
  const { createCore } = await import('../compose/core.ts');
  const { announceRevocations } = await import('../compose/scale.ts');
  const core = createCore(b);
  const announcer = announceRevocations(b, core.keys);
  return {
    keyAdmin: core.keyAdmin,
    close: async () => {
      await core.close();
      await announcer.close();
    },
  };
};

/** The alert pipeline alone: what a command fires or moves is delivered before it exits. */
async function pipelineOf(b: Base) {
  const { EventBus } = await import('../live/bus.ts');
  const { Metrics } = await import('../metrics/metrics.ts');
  const { createOutbound } = await import('../net/guarded-fetch.ts');
  const { createAlertService } = await import('../compose/alerting.ts');
  const audit = await auditOf(b);
  const bus = new EventBus();
  const metrics = new Metrics();
  const outbound = createOutbound(b.config.network.allowPrivateTargets);
  const alerts = createAlertService(b, { bus, metrics, audit, outbound });
  const close = async () => {
    await alerts.close();
    await audit.close();
  };
  return { bus, metrics, audit, outbound, alerts, close };
}

/** `spyglass alerts`: the inbox and its lifecycle. */
export const alertsKit = async (b: Base) => {
  const { alerts, close } = await pipelineOf(b);
  return { alerts, close };
};

/** `spyglass slos`: an evaluation alerts on transitions (slo_breached) as the background job's do. */
export const slosKit = async (b: Base) => {
  const { SloService } = await import('../slos/slo-service.ts');
  const p = await pipelineOf(b);
  const slos = new SloService({
    db: b.store.db,
    alerts: p.alerts,
    logger: b.logger,
    audit: p.audit,
  });
  return { slos, close: p.close };
};

/**
 * `spyglass check` and `monitor`: health checks, with the alert producers attached, since every
 * completed check raises its alerts whoever ran it (docs/health.md, docs/alert-producers.md).
 */
export const checkKit = async (b: Base) => {
  const { createHealth } = await import('../compose/checks.ts');
  const { attachAlerting } = await import('../compose/alerting.ts');
  const p = await pipelineOf(b);
  const health = createHealth(b, p);
  const producers = attachAlerting(b, { alerts: p.alerts, health, bus: p.bus });
  return {
    ...p,
    health,
    close: async () => {
      await producers.close();
      await p.close();
    },
  };
};

/** `spyglass scan`: each scan starts with a health check; findings raise the security alerts. */
export const scanKit = async (b: Base) => {
  const { createSecurity } = await import('../compose/checks.ts');
  const c = await checkKit(b);
  try {
    return { security: await createSecurity(b, c), close: c.close };
  } catch (err) {
    await c.close();
    throw err;
  }
};

/** `spyglass scorecard`: grades stored checks and scans of the configured servers; runs none. */
export const scorecardKit = async (b: Base) => {
  const { EventBus } = await import('../live/bus.ts');
  const { Metrics } = await import('../metrics/metrics.ts');
  const { createOutbound } = await import('../net/guarded-fetch.ts');
  const { createHealth, createScoring } = await import('../compose/checks.ts');
  const outbound = createOutbound(b.config.network.allowPrivateTargets);
  const health = createHealth(b, { bus: new EventBus(), metrics: new Metrics(), outbound });
  return { scoring: createScoring(b, { health }), close: nothing };
};
