import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { enforce } from '../auth/access.ts';
import type { Principal } from '../auth/principal.ts';
import { SpyglassError } from '../errors.ts';
import type { AuditEvent, AuditFilter } from '../model/audit-event.ts';
import { insertAuditRows, listAudit, type AuditRow } from '../store/audit-repo.ts';
import type { Db } from '../store/db.ts';

export type AuditAction =
  | 'user.login'
  | 'user.login_failed'
  | 'ui.login'
  | 'ui.login_failed'
  | 'ui.logout'
  | 'user.invited'
  | 'user.invite_accepted'
  | 'user.role_changed'
  | 'user.deactivated'
  | 'api_key.created'
  | 'api_key.revoked'
  | 'project.created'
  | 'project.updated'
  | 'project.deleted'
  | 'settings.updated'
  | 'alerts.config_saved'
  | 'model_pricing.updated'
  | 'prevention_config.update'
  | 'prevention_config.delete'
  | 'slo.created'
  | 'slo.updated'
  | 'slo.deleted'
  | 'catalog.updated'
  | 'catalog.deleted';

/** The largest page of the log. */
export const MAX_PAGE = 200;
/** Far beyond any audit log, and inside what PostgreSQL's OFFSET takes. */
export const MAX_OFFSET = 1_000_000_000;
/** The longest text filter (an audited resource is a path of ids and names). */
export const MAX_FILTER_CHARS = 512;

/**
 * Audit writes never block a request (docs/auth.md#audit-log): entries are queued and written in batches.
 * close() writes what is queued, so a clean shutdown loses nothing.
 */
export class AuditLog {
  private queue: AuditRow[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly logger?: Logger,
  ) {}

  record(
    actor: Principal | string,
    action: AuditAction,
    resource: string,
    result: 'success' | 'failure' = 'success',
    projectId: string | null = null,
  ): void {
    this.queue.push({
      eventId: randomUUID(),
      timestamp: new Date(),
      actor: typeof actor === 'string' ? actor : actor.actor,
      action,
      resource,
      result,
      projectId: projectId ?? (typeof actor === 'string' ? null : actor.projectId),
    });
    this.timer ??= setTimeout(() => void this.flush(), 200);
  }

  /** Writes everything queued so far; resolves when it is stored. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.queue;
    this.queue = [];
    this.writing = this.writing.then(() =>
      insertAuditRows(this.db, batch).catch((err: unknown) => {
        this.logger?.error(
          { err: (err as Error).message, lost: batch.length },
          'audit write failed',
        );
      }),
    );
    return this.writing;
  }

  /**
   * Newest first, for admins; a project-bound admin sees only its project's entries. A page holds
   * 1 to MAX_PAGE entries (one more for a connection, which asks whether a next page exists) from
   * an offset up to MAX_OFFSET.
   */
  async list(
    by: Principal,
    page: { limit: number; offset: number },
    filter: AuditFilter = {},
  ): Promise<AuditEvent[]> {
    enforce(by, 'admin');
    const bad = [
      !Number.isSafeInteger(page.limit) || page.limit < 1 || page.limit > MAX_PAGE + 1
        ? 'limit'
        : null,
      !Number.isSafeInteger(page.offset) || page.offset < 0 || page.offset > MAX_OFFSET
        ? 'offset'
        : null,
    ].filter((f) => f !== null);
    const issues = bad.map((f) => ({
      loc: ['query', f],
      msg:
        f === 'limit'
          ? `Input should be 1 to ${MAX_PAGE + 1}`
          : `Input should be 0 to ${MAX_OFFSET}`,
      type: 'int_range',
    }));
    // Text filters are matched against every entry of the window: keep them short.
    for (const f of ['action', 'actor', 'result', 'resourcePrefix'] as const) {
      if ((filter[f]?.length ?? 0) > MAX_FILTER_CHARS)
        issues.push({
          loc: ['query', f === 'resourcePrefix' ? 'target' : f],
          msg: `String should have at most ${MAX_FILTER_CHARS} characters`,
          type: 'string_too_long',
        });
    }
    if (issues.length > 0) throw new SpyglassError('validation', 'invalid page', { issues });
    await this.flush();
    return listAudit(this.db, { ...filter, projectId: by.projectId, ...page });
  }

  close(): Promise<void> {
    return this.flush();
  }
}
