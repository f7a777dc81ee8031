import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AlertSink } from '../model/alert.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import { SpyglassError, notFound } from '../errors.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import type { Db } from '../store/db.ts';
import { measureSlos, recordStates, revertState } from '../store/slo-eval-repo.ts';
import {
  deleteSloRow,
  findSloRow,
  insertSloRow,
  listSloProjects,
  listSloRows,
  updateSloRow,
  type SloRow,
} from '../store/slos-repo.ts';
import { breachAlert, breachKey, judge, type SloStatusItem } from './status.ts';
import { parseSloBody } from './validate.ts';

/** SLOs one project may define (a 409 beyond): each is evaluated every minute. */
export const MAX_SLOS_PER_PROJECT = 200;

export interface SloJson {
  slo_id: string;
  project_id: string;
  agent_name: string;
  metric: string;
  threshold: number;
  window_hours: number;
  created_at: string;
  updated_at: string;
}

export interface SloServiceDeps {
  db: Db;
  /** Where slo_breached is fired and resolved (the AlertService in production). */
  alerts: AlertSink;
  logger: Logger;
  /** The clock evaluations use when no time is given (tests move it). */
  now?: () => Date;
}

/**
 * SLO definitions and their evaluation (docs/slos.md). Every evaluation,
 * by GET or by the background job, records each SLO's status and acts on transitions: into
 * `breached` fires slo_breached, back to `ok` resolves it.
 */
export class SloService {
  private readonly now: () => Date;

  constructor(private readonly deps: SloServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** The caller's project, the one it names, else `default`. */
  project(p: Principal, requested: string | null | undefined): string {
    return scopeProject(p, requested) ?? DEFAULT_PROJECT;
  }

  async list(projectId: string): Promise<SloJson[]> {
    return (await listSloRows(this.deps.db, projectId)).map(toSloJson);
  }

  async create(projectId: string, body: unknown): Promise<SloJson> {
    const fields = parseSloBody(body, undefined, projectId);
    const at = this.now();
    const row = await insertSloRow(
      this.deps.db,
      { sloId: randomUUID(), projectId, ...fields, createdAt: at, updatedAt: at },
      MAX_SLOS_PER_PROJECT,
    );
    if (!row)
      throw new SpyglassError(
        'conflict',
        `project ${projectId} already has ${MAX_SLOS_PER_PROJECT} SLOs; delete one first`,
      );
    return toSloJson(row);
  }

  async update(projectId: string, sloId: string, body: unknown): Promise<SloJson> {
    const current = await this.find(projectId, sloId);
    const fields = parseSloBody(body, current);
    const row = await updateSloRow(this.deps.db, projectId, sloId, fields, this.now());
    if (!row) throw missing(sloId);
    return toSloJson(row);
  }

  async delete(projectId: string, sloId: string): Promise<void> {
    if (!isUuid(sloId) || !(await deleteSloRow(this.deps.db, projectId, sloId)))
      throw missing(sloId);
  }

  /** Evaluates the project's SLOs (or one agent's) at `now`, records their status and alerts on transitions. */
  async evaluate(
    projectId: string,
    now: Date = this.now(),
    agentName?: string,
  ): Promise<SloStatusItem[]> {
    const items = (await measureSlos(this.deps.db, projectId, now, agentName)).map((m) =>
      judge(m, now),
    );
    const states = items.map((i) => ({
      sloId: i.slo_id,
      status: i.status,
      currentValue: i.current_value,
      sampleSize: i.sample_size,
    }));
    const previous = await recordStates(this.deps.db, projectId, states, now);
    for (const item of items) {
      if (!previous.has(item.slo_id)) continue; // deleted while being evaluated
      await this.onTransition(projectId, item, previous.get(item.slo_id) ?? null);
    }
    return items;
  }

  /** The background job's pass: every project that has SLOs; one project failing does not stop the rest. */
  async evaluateAll(now: Date = this.now()): Promise<void> {
    for (const projectId of await listSloProjects(this.deps.db)) {
      try {
        await this.evaluate(projectId, now);
      } catch (err) {
        this.deps.logger.warn({ err, projectId }, 'SLO evaluation failed');
      }
    }
  }

  /**
   * Entering breach fires, leaving it for ok resolves; no_data does neither (no sessions is no
   * evidence of recovery). If the alert cannot be written, the status is put back so the next
   * evaluation tries the transition again instead of losing it.
   */
  private async onTransition(
    projectId: string,
    item: SloStatusItem,
    before: string | null,
  ): Promise<void> {
    const breached = item.status === 'breached' && before !== 'breached';
    const recovered = item.status === 'ok' && before === 'breached';
    if (!breached && !recovered) return;
    try {
      if (breached) await this.deps.alerts.fire(breachAlert(projectId, item));
      else await this.deps.alerts.resolveKey(projectId, breachKey(item.slo_id));
    } catch (err) {
      this.deps.logger.warn(
        { err, projectId, sloId: item.slo_id },
        `SLO ${breached ? 'breach alert' : 'recovery'} failed; retried at the next evaluation`,
      );
      await revertState(this.deps.db, item.slo_id, item.status, before);
    }
  }

  private async find(projectId: string, sloId: string): Promise<SloRow> {
    const row = isUuid(sloId) ? await findSloRow(this.deps.db, projectId, sloId) : undefined;
    if (!row) throw missing(sloId);
    return row;
  }
}

const missing = (sloId: string) => notFound(`no SLO ${sloId}`);
const isUuid = (s: string) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);

export function toSloJson(r: SloRow): SloJson {
  return {
    slo_id: r.sloId,
    project_id: r.projectId,
    agent_name: r.agentName,
    metric: r.metric,
    threshold: r.threshold,
    window_hours: r.windowHours,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}
