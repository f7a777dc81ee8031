import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { enforce } from '../auth/access.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import type { Config } from '../config/types.ts';
import { notFound, type ValidationIssue } from '../errors.ts';
import type { HealthService } from '../health/health-service.ts';
import { Limiter } from '../health/limiter.ts';
import { targetKey } from '../health/targets.ts';
import type { CheckTarget } from '../model/health.ts';
import { checkInt, throwIssues, type IntRange } from '../model/int-range.ts';
import type { EventBus } from '../live/bus.ts';
import type { Db } from '../store/db.ts';
import {
  deleteScansBefore,
  insertScan,
  latestScan,
  latestScans,
  scanHistory,
  type ServerKey,
  type StoredScan,
} from '../store/security-repo.ts';
import { collectPeers, peersOf } from './peers.ts';
import { loadPin, savePin } from './pins.ts';
import type { CheckRegistry } from './registry.ts';
import { scanRunEvents } from './scan-event.ts';
import { observeTarget, runChecks } from './scan-one.ts';
import type { Observation, Peer } from './types.ts';

/** Scans one history read returns. */
export const SCAN_HISTORY_LIMIT: IntRange = { min: 1, max: 100, default: 10 };
/** How many scans a history read may skip. */
export const SCAN_HISTORY_OFFSET: IntRange = { min: 0, max: 10_000, default: 0 };

export interface ScanOptions {
  signal?: AbortSignal;
  /** Called as each server's observation ends (the CLI's progress line). */
  onObserved?: (target: CheckTarget, done: number, total: number) => void;
}

export interface ScanDeps {
  config: Config;
  db: Db;
  bus: EventBus;
  logger: Logger;
  health: HealthService;
  /** The checks to run (registry.ts; tests pass their own). */
  registry: CheckRegistry;
}

/**
 * Security scans (docs/security.md#results-history-and-pins, docs/api.md#rest): one scan per configured server. A run first observes every
 * server through a health check with inventory (at most security.concurrency at once, shared
 * fairly between projects; the health checks also pass the health limiter), then runs the checks
 * with a consistent view of the other servers, stores each scan with its findings and pins, and
 * announces the run once per project when it found something critical or high.
 */
export class ScanService {
  private readonly limiter: Limiter;

  constructor(private readonly deps: ScanDeps) {
    this.limiter = new Limiter(deps.config.security.concurrency);
  }

  /**
   * Scans the configured servers of a project (none named = every project the caller sees), or only
   * `serverName`; 404 for an unknown name. A scan spawns processes and makes outbound requests, so
   * it needs the write role.
   */
  async scan(
    by: Principal,
    what: { projectId?: string | null | undefined; serverName?: string | undefined },
    opts: ScanOptions = {},
  ): Promise<StoredScan[]> {
    enforce(by, 'write');
    const projectId = scopeProject(by, what.projectId);
    const serverName = what.serverName || undefined;
    const all = await this.deps.health.targets(projectId);
    const targets = serverName === undefined ? all : all.filter((t) => t.name === serverName);
    if (targets.length === 0 && serverName !== undefined)
      throw notFound(`no configured server ${serverName}`);
    await this.deps.registry.prepare?.(new Date());
    const observed = new Map<string, { obs: Observation; at: Date }>();
    await Promise.all(
      targets.map((t) =>
        this.limiter.run(t.projectId, async () => {
          const at = new Date();
          const obs = await observeTarget(
            this.deps.health,
            this.deps.registry,
            t,
            this.deps.logger,
            opts.signal,
          );
          observed.set(targetKey(t.projectId, t.name), { obs, at });
          opts.onObserved?.(t, observed.size, targets.length);
        }),
      ),
    );
    const peers = await collectPeers(
      this.deps.db,
      all,
      new Map([...observed].map(([k, v]) => [k, v.obs])),
    );
    const scans: StoredScan[] = [];
    for (const t of targets) {
      const o = observed.get(targetKey(t.projectId, t.name));
      if (o) scans.push(await this.record(t, o.obs, peersOf(t, all, peers), o.at));
    }
    // Servers seen in spans but not configured (OWASP-MCP-09) belong to a whole-project run only.
    if (serverName === undefined) scans.push(...(await this.projectScans(all, projectId)));
    for (const event of scanRunEvents(scans)) this.deps.bus.publish(event);
    return scans;
  }

  /** The newest scan of a server; 404 when it was never scanned (or not in the caller's project). */
  async latest(by: Principal, serverName: string, projectId?: string | null): Promise<StoredScan> {
    const scan = await latestScan(this.deps.db, scopeProject(by, projectId), serverName);
    if (!scan) throw notFound(`no security scan of server ${serverName}`);
    return scan;
  }

  /** Scans of a server, newest first: `limit` in SCAN_HISTORY_LIMIT, `offset` in SCAN_HISTORY_OFFSET. */
  history(
    by: Principal,
    serverName: string,
    page: {
      projectId?: string | null | undefined;
      limit?: number | null | undefined;
      offset?: number | null | undefined;
    } = {},
  ): Promise<StoredScan[]> {
    const projectId = scopeProject(by, page.projectId);
    const issues: ValidationIssue[] = [];
    const limit = checkInt('limit', page.limit, SCAN_HISTORY_LIMIT, issues);
    const offset = checkInt('offset', page.offset, SCAN_HISTORY_OFFSET, issues);
    throwIssues(issues);
    return scanHistory(this.deps.db, projectId, serverName, limit, offset);
  }

  /** The newest scan of each server asked for (GraphQL batches); servers outside the caller's project are left out. */
  latestFor(by: Principal, keys: readonly ServerKey[]): Promise<StoredScan[]> {
    const scope = scopeProject(by, null);
    return latestScans(
      this.deps.db,
      scope === null ? keys : keys.filter((k) => k.projectId === scope),
    );
  }

  /** Deletes scans (and their findings) older than security.history_days; pins stay. */
  applyRetention(now = new Date()): Promise<number> {
    return deleteScansBefore(
      this.deps.db,
      new Date(now.getTime() - this.deps.config.security.historyDays * 86_400_000),
    );
  }

  private async record(
    target: CheckTarget,
    observation: Observation,
    peers: Peer[],
    now: Date,
  ): Promise<StoredScan> {
    const { db, registry, logger } = this.deps;
    const pin = await loadPin(db, target.projectId, target.name);
    const { findings, failed } = runChecks(
      registry,
      { target, observation, peers, pin, now },
      logger,
    );
    const error =
      observation.error ?? (failed.length > 0 ? `check(s) failed: ${failed.join(', ')}` : null);
    const scan = await insertScan(db, {
      id: randomUUID(),
      projectId: target.projectId,
      serverName: target.name,
      scannedAt: now,
      error,
      findings,
    });
    // Trust on first use (nextPin, wired in registry.ts): only what was seen is pinned.
    if (registry.pin && observation.reachable)
      await savePin(db, target.projectId, target.name, registry.pin(pin, observation, now), now);
    return scan;
  }

  private async projectScans(
    all: readonly CheckTarget[],
    projectId: string | null,
  ): Promise<StoredScan[]> {
    const { db, registry, logger } = this.deps;
    if (registry.projectChecks.length === 0) return [];
    const projects = projectId === null ? [...new Set(all.map((t) => t.projectId))] : [projectId];
    const out: StoredScan[] = [];
    for (const p of projects) {
      const now = new Date();
      const configured = all.filter((t) => t.projectId === p).map((t) => t.name);
      const byServer = new Map<string, Parameters<typeof insertScan>[1]['findings']>();
      for (const check of registry.projectChecks) {
        const found = await check({ db, projectId: p, configured, now }).catch((err: unknown) => {
          logger.error({ project: p, check: check.name, err }, 'security project check failed');
          return [];
        });
        for (const { serverName, finding } of found)
          byServer.set(serverName, [...(byServer.get(serverName) ?? []), finding]);
      }
      for (const [serverName, findings] of byServer)
        out.push(
          await insertScan(db, {
            id: randomUUID(),
            projectId: p,
            serverName,
            scannedAt: now,
            findings,
          }),
        );
    }
    return out;
  }
}
