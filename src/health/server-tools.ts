import { enforce } from '../auth/access.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import type { DriftEvent, ServerSession, ToolSnapshot } from '../model/health.ts';
import { checkInt, throwIssues, type IntRange } from '../model/int-range.ts';
import type { ValidationIssue } from '../errors.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import type { Db } from '../store/db.ts';
import {
  findBaseline,
  findToolSnapshot,
  findToolSnapshots,
  listResults,
} from '../store/health-repo.ts';
import { findObservedBaseline } from '../store/observed-repo.ts';
import { sessionsOfServer } from '../store/server-sessions-repo.ts';

/** serverSessions' look-back in hours: a week at most, as driftImpact (it reads raw spans). */
export const SERVER_SESSIONS_HOURS: IntRange = { min: 1, max: 168, default: 24 };
/** Sessions one serverSessions read returns. */
export const SERVER_SESSIONS_LIMIT: IntRange = { min: 1, max: 100, default: 20 };

/**
 * Reads behind the dashboard's server tabs (docs/ui.md#server-tabs-drift-tools-security-impact):
 * a server's current tool list, the two tool lists a drift event was diffed from, and the
 * sessions that called it. Reads only; every one scoped to the caller's project.
 */
export class ServerToolsService {
  constructor(private readonly deps: { db: Db }) {}

  /**
   * The tools of the server's newest listed schema: its latest health check that listed tools,
   * else the newest list an agent posted; [] when neither exists.
   */
  async tools(
    by: Principal,
    name: string,
    projectId?: string | null,
  ): Promise<{ tools: ToolSnapshot[]; schemaHash: string | null; source: string }> {
    enforce(by, 'read');
    const scoped = scopeProject(by, projectId);
    const [last] = await listResults(this.deps.db, scoped, name, 1);
    // A key bound to no project reads the default project's, as the REST reads do without project_id.
    const project = last?.projectId ?? scoped ?? DEFAULT_PROJECT;
    const checked = await findBaseline(this.deps.db, project, name);
    if (checked) return this.snapshot(checked.schemaHash, 'check');
    const observed = await findObservedBaseline(this.deps.db, project, name);
    return observed
      ? this.snapshot(observed, 'agent')
      : { tools: [], schemaHash: null, source: 'none' };
  }

  /**
   * May the caller read the tool lists of this drift event (one it already read)? Throws if not.
   * The lists themselves come batched from `snapshots`.
   */
  checkDriftRead(by: Principal, event: DriftEvent): void {
    enforce(by, 'read');
    scopeProject(by, event.projectId);
  }

  /**
   * The tool lists of schema hashes taken from drift events the caller may read (checkDriftRead),
   * in one read; a hash retention removed is absent.
   */
  async snapshots(
    by: Principal,
    hashes: readonly string[],
  ): Promise<{ hash: string; tools: ToolSnapshot[] }[]> {
    enforce(by, 'read');
    return findToolSnapshots(this.deps.db, hashes);
  }

  /**
   * Sessions that called the server (or one tool of it) in the last `hours`
   * (SERVER_SESSIONS_HOURS), newest call first, at most `limit` (SERVER_SESSIONS_LIMIT).
   */
  async sessions(
    by: Principal,
    req: {
      name: string;
      hours?: number | null | undefined;
      limit?: number | null | undefined;
      toolName?: string | null | undefined;
      projectId?: string | null | undefined;
    },
    now = new Date(),
  ): Promise<ServerSession[]> {
    enforce(by, 'read');
    const issues: ValidationIssue[] = [];
    const hours = checkInt('hours', req.hours, SERVER_SESSIONS_HOURS, issues);
    const limit = checkInt('limit', req.limit, SERVER_SESSIONS_LIMIT, issues);
    throwIssues(issues);
    return sessionsOfServer(this.deps.db, {
      projectId: scopeProject(by, req.projectId),
      serverName: req.name,
      toolName: req.toolName ?? undefined,
      since: new Date(now.getTime() - hours * 3_600_000),
      limit,
    });
  }

  private async snapshot(hash: string, source: string) {
    return { tools: (await findToolSnapshot(this.deps.db, hash)) ?? [], schemaHash: hash, source };
  }
}
