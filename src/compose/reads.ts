import type { AuditLog } from '../audit/audit-log.ts';
import { CostService } from '../costs/cost-service.ts';
import { ServerToolsService } from '../health/server-tools.ts';
import { PreventionService } from '../prevention/config-service.ts';
import { SessionsService } from '../sessions/sessions-service.ts';
import { LineageCache } from '../store/lineage-cache.ts';
import { SpansService } from '../traces/spans-service.ts';
import type { Announce, Base } from './core.ts';

/**
 * The services that only read and write their own tables: no timers, no connections of their own.
 * A CLI command that needs one of them alone builds it here (src/cli/local.ts).
 */
export interface Reads {
  spans: SpansService;
  sessions: SessionsService;
  serverTools: ServerToolsService;
  prevention: PreventionService;
  /** Not loaded: `costs.load()` reads the price book (ingest needs it, a breakdown does not). */
  costs: CostService;
}

/**
 * The lineage graph's closed hours summed once (store/lineage-cache.ts), on PGlite only: its
 * data-dir lock makes this process the database's one writer, and every write here tells the cache
 * which hours it touched (the writer's commits, project deletion, retention). On PostgreSQL other
 * instances, the cluster's workers and the CLI write the same tables and nothing tells this process
 * which hours at once (the Redis invalidation is applied within a second, and only with Redis), so
 * every read sums in SQL (docs/benchmarks.md, target 5).
 */
export function createLineageCache({ store }: Base): LineageCache | null {
  return store.kind === 'pglite' ? new LineageCache(store.db) : null;
}

export function createReads(
  { config, store }: Base,
  d: { audit: AuditLog; announce: Announce; lineage?: LineageCache | null },
): Reads {
  return {
    spans: new SpansService(store.db),
    sessions: new SessionsService(store.db, d.lineage ?? null),
    serverTools: new ServerToolsService({ db: store.db }),
    prevention: new PreventionService({ db: store.db, audit: d.audit }),
    costs: new CostService({
      db: store.db,
      audit: d.audit,
      config,
      onChanged: (id) => d.announce('pricing', id),
    }),
  };
}
