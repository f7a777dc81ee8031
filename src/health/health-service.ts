import type { Logger } from 'pino';
import type { Config } from '../config/types.ts';
import { enforce } from '../auth/access.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import { notFound } from '../errors.ts';
import type { EventBus } from '../live/bus.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { Db } from '../store/db.ts';
import {
  deleteHealthBefore,
  latestResults,
  listDriftEvents,
  listResults,
  usageByAgent,
} from '../store/health-repo.ts';
import { runCheck, type CheckOptions, type CheckReport } from './checker.ts';
import { blastSeverity, blastStatus, readStatus } from './classify.ts';
import type { GuardedFetch } from '../net/guarded-fetch.ts';
import { Limiter } from './limiter.ts';
import { DEFAULT_TIMEOUT_SECONDS, type MonitorConfig } from './monitor-config.ts';
import { resolveTargets, targetKey } from './targets.ts';
import type {
  BlastRadius,
  CheckTarget,
  DriftEvent,
  DriftImpact,
  HealthResult,
} from '../model/health.ts';
import type { KeysetPage, PageRequest } from '../model/keyset-page.ts';
import { intInRange, type IntRange } from '../model/int-range.ts';
import { pageAfter, pageOf } from './page-cursor.ts';

/** Results or drift events one history read returns (docs/health.md#rest). */
export const HISTORY_LIMIT: IntRange = { min: 1, max: 100, default: 10 };
/** drift-impact's look-back in hours: a week at most, as it reads raw spans. */
export const DRIFT_IMPACT_HOURS: IntRange = { min: 1, max: 168, default: 24 };
/** blast-radius's look-back in hours: 30 days at most. */
export const BLAST_RADIUS_HOURS: IntRange = { min: 1, max: 720, default: 24 };

export interface HealthDeps {
  config: Config;
  db: Db;
  bus: EventBus;
  metrics: Metrics;
  logger: Logger;
  /** Catalog (API-supplied) URLs are fetched through it; spyglass.yaml servers are trusted as written. */
  guardedFetch: GuardedFetch;
}

/**
 * Health checks of configured MCP servers and the reads over their results (docs/health.md#rest). Checks go
 * through one limiter (monitor.concurrency), and a check of a server already in flight is joined
 * rather than repeated. Every completed check publishes `health:check` and counts in
 * spyglass_health_checks_total.
 */
export class HealthService {
  readonly monitorConfig: MonitorConfig;
  private readonly limiter: Limiter;
  private readonly inFlight = new Map<string, Promise<CheckReport>>();
  /** Told of every completed check, whoever asked for it (monitor, CLI, API, scans): alert producers. */
  private readonly reportListeners: ((report: CheckReport) => void)[] = [];
  /**
   * What check latencies are measured with (ms; performance.now). Tests replace it with a clock
   * their fixture server advances, so latency alerts are asserted without timing the machine.
   */
  latencyClock: () => number = () => performance.now();

  constructor(private readonly deps: HealthDeps) {
    this.monitorConfig = deps.config.monitor;
    this.limiter = new Limiter(
      this.monitorConfig.concurrency,
      this.monitorConfig.concurrencyReserved,
    );
  }

  /** Configured servers of a project (null = every project). */
  targets(projectId: string | null): Promise<CheckTarget[]> {
    return resolveTargets(this.deps.config, this.deps.db, projectId);
  }

  /** Checks the servers concurrently (bounded), persists and returns the results in input order. */
  checkAll(targets: readonly CheckTarget[], signal?: AbortSignal): Promise<CheckReport[]> {
    return Promise.all(targets.map((t) => this.check(t, signal)));
  }

  /**
   * A check asked for `inventory` (a security scan's) joins only a check in flight that lists it
   * too; a plain check joins either.
   */
  check(target: CheckTarget, signal?: AbortSignal, opts: CheckOptions = {}): Promise<CheckReport> {
    const base = targetKey(target.projectId, target.name);
    const key = opts.inventory ? `${base}\u0000inventory` : base;
    const running = this.inFlight.get(`${base}\u0000inventory`) ?? this.inFlight.get(key);
    if (running) return running;
    const p = this.limiter
      .run(target.projectId, () =>
        runCheck(this.deps.db, target, signal, this.fetchFor(target), {
          ...opts,
          clock: this.latencyClock,
        }),
      )
      .then((report) => {
        this.announce(report);
        return report;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, p);
    return p;
  }

  /**
   * Calls `listener` after every completed check with the whole report (status, error, latency,
   * drift). Listeners must not block: they run inline, and a throw is logged, not propagated.
   * Returns a function that removes it.
   */
  onReport(listener: (report: CheckReport) => void): () => void {
    this.reportListeners.push(listener);
    return () => {
      const i = this.reportListeners.indexOf(listener);
      if (i >= 0) this.reportListeners.splice(i, 1);
    };
  }

  /** Catalog URLs go through the outbound policy (docs/health.md#catalog-servers-and-the-outbound-url-policy); spyglass.yaml servers are trusted as written. */
  fetchFor(target: Pick<CheckTarget, 'source'>): GuardedFetch | undefined {
    return target.source === 'catalog' ? this.deps.guardedFetch : undefined;
  }

  /**
   * Checks the configured servers of the caller's project now (or the one named): admins only,
   * for every adapter (POST /api/health/check, the runHealthChecks mutation, `spyglass check`).
   */
  async runChecks(
    by: Principal,
    req: { projectId?: string | null | undefined; serverName?: string | null | undefined } = {},
  ): Promise<CheckReport[]> {
    enforce(by, 'write');
    let targets = await this.targets(scopeProject(by, req.projectId));
    const name = req.serverName;
    if (name) {
      targets = targets.filter((t) => t.name === name);
      if (targets.length === 0) throw notFound(`no configured server ${name}`);
    }
    return this.checkAll(targets);
  }

  /** Latest result per configured server of the caller's project, with `unknown` and `stale` derived now. */
  async listLatest(
    by: Principal,
    projectId?: string | null,
    now = new Date(),
  ): Promise<HealthResult[]> {
    enforce(by, 'read');
    const targets = await this.targets(scopeProject(by, projectId));
    const latest = await latestResults(
      this.deps.db,
      targets.map((t) => ({ projectId: t.projectId, serverName: t.name })),
    );
    const byKey = new Map(latest.map((r) => [targetKey(r.projectId, r.serverName), r]));
    return targets.map((t) => {
      const r = byKey.get(targetKey(t.projectId, t.name));
      return r ? this.derive(r, t, now) : unknownResult(t);
    });
  }

  /** The newest result of one server; 404 when it was never checked. */
  async latest(
    by: Principal,
    name: string,
    projectId?: string | null,
    now = new Date(),
  ): Promise<HealthResult> {
    enforce(by, 'read');
    projectId = scopeProject(by, projectId);
    const [r] = await listResults(this.deps.db, projectId, name, 1);
    if (!r) throw notFound(`no health data for server ${name}`);
    const target = (await this.targets(projectId)).find(
      (t) => t.name === name && t.projectId === r.projectId,
    );
    return this.derive(r, target, now);
  }

  /** One server's results, newest first; `limit` in HISTORY_LIMIT. */
  async history(
    by: Principal,
    name: string,
    page: PageRequest & { projectId?: string | null | undefined } = {},
  ): Promise<KeysetPage<HealthResult>> {
    enforce(by, 'read');
    const limit = intInRange('limit', page.limit, HISTORY_LIMIT);
    const rows = await listResults(
      this.deps.db,
      scopeProject(by, page.projectId),
      name,
      limit + 1,
      pageAfter(page.after),
    );
    return pageOf(rows, limit, (r) => ({ time: r.checkedAt ?? new Date(0), id: r.id }));
  }

  /** One server's drift events, newest first; `limit` in HISTORY_LIMIT. */
  async driftHistory(
    by: Principal,
    name: string,
    page: PageRequest & { projectId?: string | null | undefined } = {},
  ): Promise<KeysetPage<DriftEvent>> {
    enforce(by, 'read');
    const limit = intInRange('limit', page.limit, HISTORY_LIMIT);
    const rows = await listDriftEvents(
      this.deps.db,
      scopeProject(by, page.projectId),
      name,
      limit + 1,
      pageAfter(page.after),
    );
    return pageOf(rows, limit, (e) => ({ time: e.detectedAt, id: e.id }));
  }

  /**
   * Who called one tool of the server in the last `hours` (DRIFT_IMPACT_HOURS) (docs/health.md#rest):
   * the consumers a drift affects.
   */
  async driftImpact(
    by: Principal,
    req: {
      name: string;
      toolName: string;
      hours?: number | null | undefined;
      projectId?: string | null | undefined;
    },
    now = new Date(),
  ): Promise<DriftImpact> {
    enforce(by, 'read');
    const hours = intInRange('hours', req.hours, DRIFT_IMPACT_HOURS);
    const since = new Date(now.getTime() - hours * 3_600_000);
    const usage = await usageByAgent(this.deps.db, {
      projectId: scopeProject(by, req.projectId),
      serverName: req.name,
      toolName: req.toolName,
      since,
    });
    const consumers = usage.agents
      .map((a) => ({
        agentName: a.agentName,
        sessionCount: a.sessionCount,
        lastCalledAt: a.lastCalledAt,
      }))
      .sort((a, b) => b.sessionCount - a.sessionCount || cmpNullable(a.agentName, b.agentName));
    return {
      serverName: req.name,
      toolName: req.toolName,
      windowHours: hours,
      consumers,
      totalSessions: usage.distinctSessions,
    };
  }

  /**
   * docs/health.md#rest exactly: per-agent usage of the server in the last `hours`
   * (BLAST_RADIUS_HOURS), and how bad its outage would be.
   */
  async blastRadius(
    by: Principal,
    req: { name: string; hours?: number | null | undefined; projectId?: string | null | undefined },
    now = new Date(),
  ): Promise<BlastRadius> {
    enforce(by, 'read');
    const hours = intInRange('hours', req.hours, BLAST_RADIUS_HOURS);
    const projectId = scopeProject(by, req.projectId);
    const { name } = req;
    const since = new Date(now.getTime() - hours * 3_600_000);
    const [usage, [last], targets] = await Promise.all([
      usageByAgent(this.deps.db, { projectId, serverName: name, since }),
      listResults(this.deps.db, projectId, name, 1),
      this.targets(projectId),
    ]);
    const target = targets.find(
      (t) => t.name === name && (!last || t.projectId === last.projectId),
    );
    const agents = usage.agents
      .map((a) => ({
        agentName: a.agentName,
        callCount: a.callCount,
        sessionCount: a.sessionCount,
        errorCount: a.errorCount,
        errorRate: a.callCount === 0 ? 0 : Math.round((a.errorCount / a.callCount) * 10_000) / 100,
        avgLatencyMs: Math.round(a.avgLatencyMs * 100) / 100,
        lastCalledAt: a.lastCalledAt,
      }))
      .sort((a, b) => b.callCount - a.callCount || cmpNullable(a.agentName, b.agentName));
    const totalSessions = agents.reduce((n, a) => n + a.sessionCount, 0);
    return {
      serverName: name,
      serverStatus: blastStatus(
        last,
        now,
        this.intervalOf(target ?? {}),
        target?.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
      ),
      windowHours: hours,
      severity: blastSeverity(agents.length, totalSessions),
      totalAgents: agents.length,
      totalSessions,
      totalCalls: agents.reduce((n, a) => n + a.callCount, 0),
      affectedAgents: agents,
    };
  }

  /** Deletes health results and drift events older than retention.health_days. */
  async applyRetention(
    now = new Date(),
  ): Promise<{ results: number; driftEvents: number; schemas: number }> {
    const cutoff = new Date(now.getTime() - this.deps.config.retention.healthDays * 86_400_000);
    return deleteHealthBefore(this.deps.db, cutoff);
  }

  /** Seconds between checks of a target: its own interval, else the monitor's. */
  intervalOf(
    t: Pick<CheckTarget, 'intervalSeconds'>,
    monitorInterval = this.monitorConfig.intervalSeconds,
  ): number {
    return t.intervalSeconds ?? monitorInterval;
  }

  private derive(r: HealthResult, t: CheckTarget | undefined, now: Date): HealthResult {
    const status = readStatus(
      r,
      now,
      this.intervalOf(t ?? {}),
      t?.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    );
    return status === r.status ? r : { ...r, status };
  }

  private announce(report: CheckReport): void {
    const r = report.result;
    this.deps.metrics.healthChecks.inc({ server: r.serverName, status: r.status });
    this.deps.bus.publish({
      type: 'health:check',
      data: {
        serverName: r.serverName,
        status: r.status,
        latencyMs: r.latencyMs,
        projectId: r.projectId,
      },
    });
    this.deps.logger.debug(
      {
        server: r.serverName,
        project: r.projectId,
        status: r.status,
        latencyMs: r.latencyMs,
        error: r.error,
      },
      'health check',
    );
    if (report.drift) {
      const d = report.drift;
      this.deps.logger.warn(
        {
          server: r.serverName,
          project: r.projectId,
          classification: d.classification,
          changes: d.changes.map((c) => c.change_type),
        },
        'MCP tool schema drift',
      );
    }
    for (const listener of this.reportListeners) {
      try {
        listener(report);
      } catch (err) {
        this.deps.logger.error(
          { err, server: r.serverName, project: r.projectId },
          'health report listener failed',
        );
      }
    }
  }
}

function unknownResult(t: CheckTarget): HealthResult {
  return {
    id: '',
    projectId: t.projectId,
    serverName: t.name,
    status: 'unknown',
    latencyMs: null,
    toolsCount: null,
    schemaHash: null,
    error: null,
    checkedAt: null,
    schemaDrift: false,
    transport: t.transport,
    serverInfo: null,
    protocolVersion: null,
  };
}

function cmpNullable(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}
