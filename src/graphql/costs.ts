import type { CostBreakdown } from '../costs/breakdown.ts';
import { parseWindow, type PricingJson } from '../costs/cost-service.ts';
import { builder, requireAdmin, type Context } from './builder.ts';

const ModelPricingRef = builder.objectRef<PricingJson>('ModelPricing').implement({
  description:
    "A model price record in USD per 1M tokens (decisions §8): a shipped default or the project's own, effective-dated",
  fields: (t) => ({
    modelId: t.exposeString('model_id'),
    provider: t.exposeString('provider'),
    inputPer1mUsd: t.exposeFloat('input_per_1m_usd'),
    outputPer1mUsd: t.exposeFloat('output_per_1m_usd'),
    cacheReadPer1mUsd: t.exposeFloat('cache_read_per_1m_usd', { nullable: true }),
    cacheWritePer1mUsd: t.exposeFloat('cache_write_per_1m_usd', { nullable: true }),
    effectiveFrom: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'null for a shipped default (in effect since always)',
      resolve: (r) => (r.effective_from ? new Date(r.effective_from) : null),
    }),
    updatedAt: t.field({ type: 'DateTime', resolve: (r) => new Date(r.updated_at) }),
    source: t.exposeString('source', { description: 'default or custom' }),
    estimated: t.exposeBoolean('estimated', {
      description:
        'always false here: only spans of unlisted models are priced at 10/30 per 1M and marked estimated',
    }),
  }),
});

type Row<K extends keyof CostBreakdown> = CostBreakdown[K] extends (infer T)[] ? T : never;

const ModelCostRef = builder.objectRef<Row<'by_model'>>('ModelCost').implement({
  fields: (t) => ({
    modelId: t.exposeString('model_id'),
    calls: t.exposeInt('calls'),
    inputTokens: t.exposeFloat('input_tokens'),
    outputTokens: t.exposeFloat('output_tokens'),
    costUsd: t.exposeFloat('cost_usd'),
    estimated: t.exposeBoolean('estimated', {
      description: 'some calls were priced at the unknown-model price',
    }),
  }),
});
const ToolCostRef = builder.objectRef<Row<'by_tool'>>('ToolCost').implement({
  fields: (t) => ({
    serverName: t.exposeString('server_name'),
    toolName: t.exposeString('tool_name'),
    calls: t.exposeInt('calls'),
    costUsd: t.exposeFloat('cost_usd'),
  }),
});
const AgentCostRef = builder.objectRef<Row<'by_agent'>>('AgentCost').implement({
  fields: (t) => ({
    agentName: t.exposeString('agent_name'),
    llmCostUsd: t.exposeFloat('llm_cost_usd'),
    toolCostUsd: t.exposeFloat('tool_cost_usd'),
    costUsd: t.exposeFloat('cost_usd'),
  }),
});
const SessionCostRef = builder.objectRef<Row<'top_sessions'>>('SessionCost').implement({
  fields: (t) => ({
    sessionId: t.exposeString('session_id'),
    agentName: t.exposeString('agent_name', { nullable: true }),
    costUsd: t.exposeFloat('cost_usd'),
    lastCallAt: t.field({ type: 'DateTime', resolve: (s) => new Date(s.last_call_at) }),
  }),
});

const CostBreakdownRef = builder.objectRef<CostBreakdown>('CostBreakdown').implement({
  description: 'Costs of a window read from the hourly rollups; edges are whole hours',
  fields: (t) => ({
    window: t.exposeString('window'),
    since: t.field({ type: 'DateTime', resolve: (b) => new Date(b.since) }),
    until: t.field({ type: 'DateTime', resolve: (b) => new Date(b.until) }),
    totalCostUsd: t.exposeFloat('total_cost_usd'),
    llmCostUsd: t.exposeFloat('llm_cost_usd'),
    toolCostUsd: t.exposeFloat('tool_cost_usd'),
    byModel: t.field({ type: [ModelCostRef], resolve: (b) => b.by_model }),
    byTool: t.field({ type: [ToolCostRef], resolve: (b) => b.by_tool }),
    byAgent: t.field({ type: [AgentCostRef], resolve: (b) => b.by_agent }),
    topSessions: t.field({ type: [SessionCostRef], resolve: (b) => b.top_sessions }),
  }),
});

const PricingInput = builder.inputType('ModelPricingInput', {
  description:
    "USD per 1M tokens; on update, fields left out keep the model's values at effectiveFrom",
  fields: (t) => ({
    provider: t.string({ required: false }),
    inputPer1mUsd: t.float({ required: false }),
    outputPer1mUsd: t.float({ required: false }),
    cacheReadPer1mUsd: t.float({ required: false }),
    cacheWritePer1mUsd: t.float({ required: false }),
    effectiveFrom: t.field({ type: 'DateTime', required: false, description: 'default now' }),
  }),
});

type PricingArgs = {
  provider?: string | null;
  inputPer1mUsd?: number | null;
  outputPer1mUsd?: number | null;
  cacheReadPer1mUsd?: number | null;
  cacheWritePer1mUsd?: number | null;
  effectiveFrom?: Date | null;
};

/** The REST body of a GraphQL input, so both go through one validation. */
function toBody(i: PricingArgs, modelId?: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model_id: modelId,
    provider: i.provider ?? undefined,
    input_per_1m_usd: i.inputPer1mUsd ?? undefined,
    output_per_1m_usd: i.outputPer1mUsd ?? undefined,
    // An explicit null clears a cache price.
    cache_read_per_1m_usd: i.cacheReadPer1mUsd,
    cache_write_per_1m_usd: i.cacheWritePer1mUsd,
    effective_from: i.effectiveFrom?.toISOString(),
  };
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}

const project = (ctx: Context, requested: string | null | undefined) =>
  ctx.services.costs.project(ctx.principal, requested);

builder.queryField('costBreakdown', (t) =>
  t.field({
    type: CostBreakdownRef,
    args: {
      window: t.arg.string({ required: false, description: '24h (default), 7d or 30d' }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.costs.breakdown(
        project(ctx, a.projectId),
        parseWindow(a.window, ['args', 'window']),
      ),
  }),
);

builder.queryField('modelPricing', (t) =>
  t.field({
    type: [ModelPricingRef],
    args: {
      history: t.arg.boolean({
        required: false,
        description: 'every dated record instead of the one in effect now',
      }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.costs.listModels(project(ctx, a.projectId), { history: a.history ?? false }),
  }),
);

builder.mutationField('addModelPricing', (t) =>
  t.field({
    type: ModelPricingRef,
    args: {
      modelId: t.arg.string({ required: true }),
      input: t.arg({ type: PricingInput, required: true }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) => {
      requireAdmin(ctx);
      return ctx.services.costs.addModel(
        ctx.principal,
        project(ctx, a.projectId),
        toBody(a.input, a.modelId),
      );
    },
  }),
);

builder.mutationField('updateModelPricing', (t) =>
  t.field({
    type: ModelPricingRef,
    description: 'A new effective-dated record; stored span costs are never rewritten',
    args: {
      modelId: t.arg.string({ required: true }),
      input: t.arg({ type: PricingInput, required: true }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) => {
      requireAdmin(ctx);
      return ctx.services.costs.updateModel(
        ctx.principal,
        project(ctx, a.projectId),
        a.modelId,
        toBody(a.input),
      );
    },
  }),
);

builder.mutationField('deleteModelPricing', (t) =>
  t.int({
    description: "Removes the project's own records of a model; returns how many were removed",
    args: {
      modelId: t.arg.string({ required: true }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: async (_r, a, ctx) => {
      requireAdmin(ctx);
      return (
        await ctx.services.costs.deleteModel(ctx.principal, project(ctx, a.projectId), a.modelId)
      ).removed;
    },
  }),
);
