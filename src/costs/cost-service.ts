import type { AuditLog } from '../audit/audit-log.ts';
import { scopeProject, type Principal } from '../auth/principal.ts';
import type { Config } from '../config/types.ts';
import { SpyglassError, notFound } from '../errors.ts';
import { DEFAULT_PROJECT } from '../model/span.ts';
import {
  deletePricing,
  sumHourlyCosts,
  topSessionsByCost,
  upsertPricing,
} from '../store/costs-repo.ts';
import type { Db } from '../store/db.ts';
import { findProject } from '../store/projects-repo.ts';
import {
  COST_WINDOWS,
  buildBreakdown,
  windowEdges,
  type CostBreakdown,
  type CostWindow,
} from './breakdown.ts';
import { PriceBook, type PriceRecord } from './price-book.ts';
import { parsePricingInput } from './pricing-input.ts';
import { ToolCostRules } from './tool-rules.ts';

export interface PricingJson {
  model_id: string;
  provider: string;
  input_per_1m_usd: number;
  output_per_1m_usd: number;
  cache_read_per_1m_usd: number | null;
  cache_write_per_1m_usd: number | null;
  /** null for a shipped default: in effect since always. */
  effective_from: string | null;
  updated_at: string;
  source: 'default' | 'custom';
  /** Always false for a listed record; spans of models not listed are priced at 10/30 and marked estimated. */
  estimated: false;
}

const TOP_SESSIONS = 10;

/**
 * Model pricing and the cost breakdown (docs/costs.md) of the active project: the
 * caller's, the one it names, else `default`. The price book and tool rules it owns are the ones
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

  project(p: Principal, requested: string | null | undefined): string {
    return scopeProject(p, requested) ?? DEFAULT_PROJECT;
  }

  /** The price in effect now per model id, or every dated record with `history`. */
  listModels(projectId: string, opts: { history?: boolean; now?: Date } = {}): PricingJson[] {
    return this.book
      .table(projectId)
      .records((opts.now ?? new Date()).getTime(), opts.history ?? false)
      .map(toPricingJson);
  }

  /** POST: a new dated record with both prices given. */
  async addModel(p: Principal, projectId: string, body: unknown): Promise<PricingJson> {
    const input = parsePricingInput(body, {});
    await this.requireProject(projectId);
    const from = input.effectiveFrom ?? new Date();
    const provider =
      input.provider ??
      this.book.table(projectId).lookup(input.modelId, from.getTime())?.provider ??
      'other';
    return this.store(p, projectId, 'added', {
      modelId: input.modelId,
      provider,
      input: input.input as number,
      output: input.output as number,
      cacheRead: input.cacheRead ?? null,
      cacheWrite: input.cacheWrite ?? null,
      effectiveFrom: from,
    });
  }

  /** PATCH: a new dated record from effective_from; fields left out keep the model's values then. */
  async updateModel(
    p: Principal,
    projectId: string,
    modelId: string,
    body: unknown,
  ): Promise<PricingJson> {
    const input = parsePricingInput(body, { pathModelId: modelId });
    await this.requireProject(projectId);
    const from = input.effectiveFrom ?? new Date();
    const own = this.book
      .table(projectId)
      .records(0, true)
      .filter((r) => r.modelId === input.modelId);
    const base = own.filter((r) => r.fromMs <= from.getTime()).at(-1) ?? own[0];
    if (!base)
      throw notFound(`no pricing for model ${input.modelId}; add it with POST /api/costs/models`);
    return this.store(p, projectId, 'changed', {
      modelId: input.modelId,
      provider: input.provider ?? base.provider,
      input: input.input ?? base.input,
      output: input.output ?? base.output,
      cacheRead: input.cacheRead === undefined ? base.cacheRead : input.cacheRead,
      cacheWrite: input.cacheWrite === undefined ? base.cacheWrite : input.cacheWrite,
      effectiveFrom: from,
    });
  }

  /** DELETE: the project's own records of the model go; the default (or the unknown price) applies from then on. */
  async deleteModel(
    p: Principal,
    projectId: string,
    modelId: string,
  ): Promise<{ model_id: string; removed: number }> {
    const id = parsePricingInput({}, { pathModelId: modelId }).modelId;
    const removed = await deletePricing(this.deps.db, projectId, id);
    if (removed === 0) throw notFound(`project ${projectId} has no custom pricing for model ${id}`);
    await this.book.reload();
    this.deps.onChanged?.(projectId);
    this.deps.audit.record(
      p,
      'model_pricing.updated',
      `model_pricing:${id}:deleted`,
      'success',
      projectId,
    );
    return { model_id: id, removed };
  }

  /** Cost by model, tool, agent and the top sessions of a window, read from the rollups only. */
  async breakdown(projectId: string, window: CostWindow, now = new Date()): Promise<CostBreakdown> {
    const edges = windowEdges(window, now);
    const [rows, sessions] = await Promise.all([
      sumHourlyCosts(this.deps.db, projectId, edges.since, edges.until),
      topSessionsByCost(this.deps.db, projectId, edges.since, edges.until, TOP_SESSIONS),
    ]);
    return buildBreakdown(window, edges, rows, sessions);
  }

  private async store(
    p: Principal,
    projectId: string,
    op: 'added' | 'changed',
    r: Omit<PriceRecord, 'fromMs' | 'updatedAt' | 'source'> & { effectiveFrom: Date },
  ): Promise<PricingJson> {
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
    return toPricingJson({
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

/** `window` of the breakdown: 24h, 7d or 30d (default 24h); anything else is a 422 naming the field. */
export function parseWindow(
  raw: unknown,
  loc: (string | number)[] = ['query', 'window'],
): CostWindow {
  if (raw === undefined || raw === null || raw === '') return '24h';
  if (typeof raw === 'string' && Object.hasOwn(COST_WINDOWS, raw)) return raw as CostWindow;
  throw new SpyglassError('validation', 'invalid window', {
    issues: [
      { loc, msg: `Input should be one of ${Object.keys(COST_WINDOWS).join(', ')}`, type: 'enum' },
    ],
  });
}

function toPricingJson(r: PriceRecord): PricingJson {
  return {
    model_id: r.modelId,
    provider: r.provider,
    input_per_1m_usd: r.input,
    output_per_1m_usd: r.output,
    cache_read_per_1m_usd: r.cacheRead,
    cache_write_per_1m_usd: r.cacheWrite,
    effective_from: Number.isFinite(r.fromMs) ? new Date(r.fromMs).toISOString() : null,
    updated_at: r.updatedAt.toISOString(),
    source: r.source,
    estimated: false,
  };
}
