import type { AuditLog } from '../audit/audit-log.ts';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AlertSink } from '../model/alert.ts';
import { enforce } from '../auth/access.ts';
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
import type { Slo, SloEvaluation, SloInput } from '../model/slo.ts';
import { breachAlert, breachKey, judge } from './status.ts';
import { checkSlo } from './validate.ts';

/** SLOs one project may define (a 409 beyond): each is evaluated every minute. */
export const MAX_SLOS_PER_PROJECT = 200;

export interface SloServiceDeps {
  db: Db;
  /** Where slo_breached is fired and resolved (the AlertService in production). */
  alerts: AlertSink;
  logger: Logger;
  /** The clock evaluations use when no time is given (tests move it). */
  now?: () => Date;
  /** Where creates, changes and deletes are recorded (the audit log). */
  audit?: Pick<AuditLog, 'record'>;
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
  private project(p: Principal, requested: string | null | undefined): string {
    return scopeProject(p, requested) ?? DEFAULT_PROJECT;
  }

  async list(by: Principal, projectId?: string | null): Promise<Slo[]> {
    enforce(by, 'read');
    return listSloRows(this.deps.db, this.project(by, projectId));
  }

  /**
   * A new SLO of the caller's project (the admin role). `input.projectId` may repeat the project
   * the request is for, and names it when `projectId` is absent.
   */
  async create(by: Principal, input: SloInput, projectId?: string | null): Promise<Slo> {
    enforce(by, 'write');
    const project = this.project(by, projectId ?? input.projectId);
    const fields = checkSlo(input, undefined, project);
    const at = this.now();
    const row = await insertSloRow(
      this.deps.db,
      { sloId: randomUUID(), projectId: project, ...fields, createdAt: at, updatedAt: at },
      MAX_SLOS_PER_PROJECT,
    );
    if (!row)
      throw new SpyglassError(
        'conflict',
        `project ${project} already has ${MAX_SLOS_PER_PROJECT} SLOs; delete one first`,
      );
    this.deps.audit?.record(by, 'slo.created', `slo:${project}/${row.sloId}`, 'success', project);
    return row;
  }

  /** Changes the fields given (any subset of SloInput but projectId); the others stay. */
  async update(
    by: Principal,
    sloId: string,
    input: SloInput,
    projectId?: string | null,
  ): Promise<Slo> {
    enforce(by, 'write');
    const project = this.project(by, projectId);
    const current = await this.find(project, sloId);
    const fields = checkSlo(input, current);
    const row = await updateSloRow(this.deps.db, project, sloId, fields, this.now());
    if (!row) throw missing(sloId);
    this.deps.audit?.record(by, 'slo.updated', `slo:${project}/${sloId}`, 'success', project);
    return row;
  }

  async delete(by: Principal, sloId: string, projectId?: string | null): Promise<void> {
    enforce(by, 'write');
    const project = this.project(by, projectId);
    if (!isUuid(sloId) || !(await deleteSloRow(this.deps.db, project, sloId))) throw missing(sloId);
    this.deps.audit?.record(by, 'slo.deleted', `slo:${project}/${sloId}`, 'success', project);
  }

  /** The caller's SLOs (or one agent's) evaluated now; transitions alert as the background job's do. */
  status(
    by: Principal,
    req: { projectId?: string | null | undefined; agentName?: string | null | undefined } = {},
  ): Promise<SloEvaluation[]> {
    enforce(by, 'read');
    return this.evaluate(this.project(by, req.projectId), undefined, req.agentName || undefined);
  }

  /** Evaluates the project's SLOs (or one agent's) at `now`, records their status and alerts on transitions. */
  async evaluate(
    projectId: string,
    now: Date = this.now(),
    agentName?: string,
  ): Promise<SloEvaluation[]> {
    const items = (await measureSlos(this.deps.db, projectId, now, agentName)).map((m) =>
      judge(m, now),
    );
    const states = items.map((i) => ({
      sloId: i.sloId,
      status: i.status,
      currentValue: i.currentValue,
      sampleSize: i.sampleSize,
    }));
    const recorded = await recordStates(this.deps.db, projectId, states, now);
    for (const item of items) {
      const r = recorded.get(item.sloId);
      if (!r) continue; // deleted while being evaluated
      item.since = r.changedAt;
      await this.onTransition(projectId, item, r.previous);
    }
    return items;
  }

  /**
   * The background job's pass: every project that has SLOs; one project failing does not stop the
   * rest. Once `signal` is aborted (serve stopping) the projects not yet begun wait for the next run.
   */
  async evaluateAll(now: Date = this.now(), signal?: AbortSignal): Promise<void> {
    for (const projectId of await listSloProjects(this.deps.db)) {
      if (signal?.aborted) return;
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
    item: SloEvaluation,
    before: string | null,
  ): Promise<void> {
    const breached = item.status === 'breached' && before !== 'breached';
    const recovered = item.status === 'ok' && before === 'breached';
    if (!breached && !recovered) return;
    try {
      if (breached) await this.deps.alerts.fire(breachAlert(projectId, item));
      else await this.deps.alerts.resolveKey(projectId, breachKey(item.sloId));
    } catch (err) {
      this.deps.logger.warn(
        { err, projectId, sloId: item.sloId },
        `SLO ${breached ? 'breach alert' : 'recovery'} failed; retried at the next evaluation`,
      );
      await revertState(this.deps.db, item.sloId, item.status, before);
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
