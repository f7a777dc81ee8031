import type { AuditLog } from '../audit/audit-log.ts';
import { enforce } from '../auth/access.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import type { Config } from '../config/types.ts';
import { notFound } from '../errors.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import {
  deletePricing,
  sumCostPerHour,
  sumHourlyCosts,
  topSessionsByCost,
  upsertPricing,
} from '../store/costs-repo.ts';
import type { Db } from '../store/db.ts';
import { findProject } from '../store/projects-repo.ts';
import {
  type CostBreakdown,
  type CostPoint,
  type ModelPrice,
  type ModelPriceInput,
} from '../model/cost.ts';
import { buildBreakdown, buildSeries } from './breakdown.ts';
import { costRange, type CostRangeQuery } from './cost-range.ts';
import { PriceBook, type PriceRecord } from './price-book.ts';
import { checkPriceInput } from './pricing-input.ts';
import { ToolCostRules } from './tool-rules.ts';

const TOP_SESSIONS = 10;

/**
 * Model pricing and the cost breakdown (docs/costs.md) of the active project: the
 * caller's, the one it names, else `default`. Any role reads; changing prices needs the admin role
 * and is audited. The price book and tool rules it owns are the ones
 * ingest prices spans with, so a change here applies to the next span stored.
 */
export class CostService {
  readonly book: PriceBook;
  readonly rules: ToolCostRules;

  constructor(
    private readonly deps: {
      db: Db;
      audit: AuditLog;
      config: Pick<Config, 'costs'>;
      onChanged?: (projectId: string) => void;
    },
  ) {
    this.book = new PriceBook(deps.db);
    this.rules = new ToolCostRules(deps.config.costs.rules);
  }

  /** Loads every project's prices; call before ingest starts, and periodically after. */
  load(): Promise<void> {
    return this.book.reload();
  }

  /** The caller's project, the one it names, else `default`; a bound key naming another gets 403. */
  private project(by: Principal, requested: string | null | undefined): string {
    return scopeProject(by, requested) ?? DEFAULT_PROJECT;
  }

  /** The price in effect now per model id, or every dated record with `history`. */
  listModels(
    by: Principal,
    opts: { projectId?: string | null; history?: boolean; now?: Date } = {},
  ): ModelPrice[] {
    enforce(by, 'read');
    return this.book
      .table(this.project(by, opts.projectId))
      .records((opts.now ?? new Date()).getTime(), opts.history ?? false)
      .map(toModelPrice);
  }

  /** A new dated record with both prices given (admins). */
  async addModel(
    by: Principal,
    modelId: string,
    input: ModelPriceInput,
    projectId?: string | null,
  ): Promise<ModelPrice> {
    enforce(by, 'write');
    const project = this.project(by, projectId);
    const id = checkPriceInput(modelId, 'body', input, true);
    await this.requireProject(project);
    const from = input.effectiveFrom ?? new Date();
    const provider =
      input.provider?.trim() ??
      this.book.table(project).lookup(id, from.getTime())?.provider ??
      'other';
    return this.store(by, project, 'added', {
      modelId: id,
      provider,
      input: input.inputPer1mUsd as number,
      output: input.outputPer1mUsd as number,
      cacheRead: input.cacheReadPer1mUsd ?? null,
      cacheWrite: input.cacheWritePer1mUsd ?? null,
      effectiveFrom: from,
    });
  }

  /** A new dated record from effectiveFrom; fields left out keep the model's values then (admins). */
  async updateModel(
    by: Principal,
    modelId: string,
    input: ModelPriceInput,
    projectId?: string | null,
  ): Promise<ModelPrice> {
    enforce(by, 'write');
    const project = this.project(by, projectId);
    const id = checkPriceInput(modelId, 'path', input, false);
    await this.requireProject(project);
    const from = input.effectiveFrom ?? new Date();
    const own = this.book
      .table(project)
      .records(0, true)
      .filter((r) => r.modelId === id);
    const base = own.filter((r) => r.fromMs <= from.getTime()).at(-1) ?? own[0];
    if (!base) throw notFound(`no pricing for model ${id}; add it with POST /api/costs/models`);
    return this.store(by, project, 'changed', {
      modelId: id,
      provider: input.provider?.trim() ?? base.provider,
      input: input.inputPer1mUsd ?? base.input,
      output: input.outputPer1mUsd ?? base.output,
      cacheRead: input.cacheReadPer1mUsd === undefined ? base.cacheRead : input.cacheReadPer1mUsd,
      cacheWrite:
        input.cacheWritePer1mUsd === undefined ? base.cacheWrite : input.cacheWritePer1mUsd,
      effectiveFrom: from,
    });
  }

  /** The project's own records of the model go; the default (or the unknown price) applies from then on. */
  async deleteModel(
    by: Principal,
    modelId: string,
    projectId?: string | null,
  ): Promise<{ modelId: string; removed: number }> {
    enforce(by, 'write');
    const project = this.project(by, projectId);
    const id = checkPriceInput(modelId, 'path', {}, false);
    const removed = await deletePricing(this.deps.db, project, id);
    if (removed === 0) throw notFound(`project ${project} has no custom pricing for model ${id}`);
    await this.book.reload();
    this.deps.onChanged?.(project);
    this.deps.audit.record(
      by,
      'model_pricing.updated',
      `model_pricing:${id}:deleted`,
      'success',
      project,
    );
    return { modelId: id, removed };
  }

  /**
   * Cost by model, tool, agent and the top sessions of a window (or a since/until range of at
   * most 30 days), read from the rollups only.
   */
  async breakdown(
    by: Principal,
    q: CostRangeQuery & { projectId?: string | null } = {},
  ): Promise<CostBreakdown> {
    enforce(by, 'read');
    const projectId = this.project(by, q.projectId);
    const range = costRange(q);
    const [rows, sessions] = await Promise.all([
      sumHourlyCosts(this.deps.db, projectId, range.since, range.until),
      topSessionsByCost(this.deps.db, projectId, range.since, range.until, TOP_SESSIONS),
    ]);
    return buildBreakdown(range, rows, sessions);
  }

  /** The cost of each hour of the same window or range as `breakdown` (at most 720 points). */
  async series(
    by: Principal,
    q: CostRangeQuery & { projectId?: string | null } = {},
  ): Promise<{ range: ReturnType<typeof costRange>; points: CostPoint[] }> {
    enforce(by, 'read');
    const projectId = this.project(by, q.projectId);
    const range = costRange(q);
    const rows = await sumCostPerHour(this.deps.db, projectId, range.since, range.until);
    return { range, points: buildSeries(range, rows) };
  }

  private async store(
    p: Principal,
    projectId: string,
    op: 'added' | 'changed',
    r: Omit<PriceRecord, 'fromMs' | 'updatedAt' | 'source'> & { effectiveFrom: Date },
  ): Promise<ModelPrice> {
    const row = await upsertPricing(this.deps.db, {
      projectId,
      modelId: r.modelId,
      provider: r.provider,
      inputPer1mUsd: r.input,
      outputPer1mUsd: r.output,
      cacheReadPer1mUsd: r.cacheRead,
      cacheWritePer1mUsd: r.cacheWrite,
      effectiveFrom: r.effectiveFrom,
    });
    await this.book.reload();
    this.deps.onChanged?.(projectId);
    this.deps.audit.record(
      p,
      'model_pricing.updated',
      `model_pricing:${r.modelId}:${op}@${r.effectiveFrom.toISOString()}`,
      'success',
      projectId,
    );
    return toModelPrice({
      ...r,
      fromMs: row.effectiveFrom.getTime(),
      updatedAt: row.updatedAt,
      source: 'custom',
    });
  }

  private async requireProject(projectId: string): Promise<void> {
    if (!(await findProject(this.deps.db, projectId))) throw notFound(`no project ${projectId}`);
  }
}

function toModelPrice(r: PriceRecord): ModelPrice {
  return {
    modelId: r.modelId,
    provider: r.provider,
    inputPer1mUsd: r.input,
    outputPer1mUsd: r.output,
    cacheReadPer1mUsd: r.cacheRead,
    cacheWritePer1mUsd: r.cacheWrite,
    effectiveFrom: Number.isFinite(r.fromMs) ? new Date(r.fromMs) : null,
    updatedAt: r.updatedAt,
    source: r.source,
  };
}
