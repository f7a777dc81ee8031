import type { Logger } from 'pino';
import { AuditLog } from '../audit/audit-log.ts';
import { KeyAdmin } from '../auth/key-admin.ts';
import { KeyService } from '../auth/key-service.ts';
import type { Config } from '../config/types.ts';
import type { InvalidationTopic } from '../scale/coord/invalidation.ts';
import type { Store } from '../store/open-store.ts';
import { findProject } from '../store/projects-repo.ts';

/** What every capability factory is built on: the configuration, the open store and the logger. */
export interface Base {
  config: Config;
  store: Store;
  logger: Logger;
}

/** Tells the other instances that cached state changed here (a no-op without Redis). */
export type Announce = (topic: InvalidationTopic, projectId?: string | null) => void;

/** The audit log and API keys: what the other capabilities record to and authenticate with. */
export interface Core {
  audit: AuditLog;
  keys: KeyService;
  /** Creating, listing and revoking keys, for every adapter (authorization and audit inside). */
  keyAdmin: KeyAdmin;
  /** Writes the audit entries still buffered. */
  close(): Promise<void>;
}

export function createCore({ config, store, logger }: Base): Core {
  const audit = new AuditLog(store.db, logger);
  const keys = new KeyService(store.db, config.apiKeys);
  const keyAdmin = new KeyAdmin({
    keys,
    audit,
    projectExists: async (id) => (await findProject(store.db, id)) !== undefined,
  });
  return { audit, keys, keyAdmin, close: () => audit.close() };
}
