import type { AuditLog } from '../audit/audit-log.ts';
import { CostService } from '../costs/cost-service.ts';
import { ServerToolsService } from '../health/server-tools.ts';
import { PreventionService } from '../prevention/config-service.ts';
import { SessionsService } from '../sessions/sessions-service.ts';
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

export function createReads(
  { config, store }: Base,
  d: { audit: AuditLog; announce: Announce },
): Reads {
  return {
    spans: new SpansService(store.db),
    sessions: new SessionsService(store.db),
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
