import { resolveArrayConnection } from '@pothos/plugin-relay';
import type {
  AgentCost,
  CostBreakdown,
  CostPoint,
  CostRange,
  ModelCost,
  ModelPrice,
  SessionCost,
  ToolCost,
} from '../model/cost.ts';
import { withoutNulls } from './args.ts';
import { builder } from './builder.ts';

/** Every record fits one page by default: the shipped defaults alone are dozens. */
const PRICING_PAGE = 1000;

const ModelPricingRef = builder.objectRef<ModelPrice>('ModelPricing').implement({
  description:
    "A model price record in USD per 1M tokens (docs/costs.md): a shipped default or the project's own, effective-dated",
  fields: (t) => ({
    modelId: t.exposeString('modelId'),
    provider: t.exposeString('provider'),
    inputPer1mUsd: t.exposeFloat('inputPer1mUsd'),
    outputPer1mUsd: t.exposeFloat('outputPer1mUsd'),
    cacheReadPer1mUsd: t.exposeFloat('cacheReadPer1mUsd', { nullable: true }),
    cacheWritePer1mUsd: t.exposeFloat('cacheWritePer1mUsd', { nullable: true }),
    effectiveFrom: t.expose('effectiveFrom', {
      type: 'DateTime',
      nullable: true,
      description: 'null for a shipped default (in effect since always)',
    }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    source: t.exposeString('source', { description: 'default or custom' }),
    estimated: t.boolean({
      description:
        'always false here: only spans of unlisted models are priced at 10/30 per 1M and marked estimated',
      resolve: () => false,
    }),
  }),
});

const ModelCostRef = builder.objectRef<ModelCost>('ModelCost').implement({
  fields: (t) => ({
    modelId: t.exposeString('modelId'),
    calls: t.exposeInt('calls'),
    inputTokens: t.exposeFloat('inputTokens'),
    outputTokens: t.exposeFloat('outputTokens'),
    costUsd: t.exposeFloat('costUsd'),
    estimated: t.exposeBoolean('estimated', {
      description: 'some calls were priced at the unknown-model price',
    }),
  }),
});
const ToolCostRef = builder.objectRef<ToolCost>('ToolCost').implement({
  fields: (t) => ({
    serverName: t.exposeString('serverName'),
    toolName: t.exposeString('toolName'),
    calls: t.exposeInt('calls'),
    costUsd: t.exposeFloat('costUsd'),
  }),
});
const AgentCostRef = builder.objectRef<AgentCost>('AgentCost').implement({
  fields: (t) => ({
    agentName: t.exposeString('agentName'),
    llmCostUsd: t.exposeFloat('llmCostUsd'),
    toolCostUsd: t.exposeFloat('toolCostUsd'),
    costUsd: t.exposeFloat('costUsd'),
  }),
});
const SessionCostRef = builder.objectRef<SessionCost>('SessionCost').implement({
  fields: (t) => ({
    sessionId: t.exposeString('sessionId'),
    agentName: t.exposeString('agentName', { nullable: true }),
    costUsd: t.exposeFloat('costUsd'),
    lastCallAt: t.expose('lastCallAt', { type: 'DateTime' }),
  }),
});

const CostBreakdownRef = builder.objectRef<CostBreakdown>('CostBreakdown').implement({
  description: 'Costs of a window read from the hourly rollups; edges are whole hours',
  fields: (t) => ({
    window: t.exposeString('window'),
    since: t.expose('since', { type: 'DateTime' }),
    until: t.expose('until', { type: 'DateTime' }),
    totalCostUsd: t.exposeFloat('totalCostUsd'),
    llmCostUsd: t.exposeFloat('llmCostUsd'),
    toolCostUsd: t.exposeFloat('toolCostUsd'),
    byModel: t.field({ type: [ModelCostRef], resolve: (b) => b.byModel }),
    byTool: t.field({ type: [ToolCostRef], resolve: (b) => b.byTool }),
    byAgent: t.field({ type: [AgentCostRef], resolve: (b) => b.byAgent }),
    topSessions: t.field({ type: [SessionCostRef], resolve: (b) => b.topSessions }),
  }),
});

const CostPointRef = builder.objectRef<CostPoint>('CostPoint').implement({
  description: 'One hour of a cost series',
  fields: (t) => ({
    at: t.expose('at', { type: 'DateTime', description: 'the start of the hour' }),
    llmCostUsd: t.exposeFloat('llmCostUsd'),
    toolCostUsd: t.exposeFloat('toolCostUsd'),
    costUsd: t.exposeFloat('costUsd'),
  }),
});

const CostSeriesRef = builder
  .objectRef<CostRange & { points: CostPoint[] }>('CostSeries')
  .implement({
    fields: (t) => ({
      window: t.exposeString('window', { description: '24h, 7d, 30d or custom' }),
      since: t.expose('since', { type: 'DateTime' }),
      until: t.expose('until', { type: 'DateTime' }),
      points: t.field({ type: [CostPointRef], resolve: (s) => s.points }),
    }),
  });

/** A named window, or since and until (whole hours, at most 30 days) instead. */
const rangeArgs = builder.args((t) => ({
  window: t.string({ required: false, description: '24h (default), 7d or 30d' }),
  since: t.field({
    type: 'DateTime',
    required: false,
    description: 'with until instead of window; widened to whole hours, at most 30 days',
  }),
  until: t.field({ type: 'DateTime', required: false }),
  projectId: t.string({ required: false }),
}));

const PricingInput = builder.inputType('ModelPricingInput', {
  description:
    "USD per 1M tokens; on update, fields left out keep the model's values at effectiveFrom",
  fields: (t) => ({
    provider: t.string({ required: false }),
    inputPer1mUsd: t.float({ required: false }),
    outputPer1mUsd: t.float({ required: false }),
    cacheReadPer1mUsd: t.float({ required: false, description: 'null clears it' }),
    cacheWritePer1mUsd: t.float({ required: false, description: 'null clears it' }),
    effectiveFrom: t.field({ type: 'DateTime', required: false, description: 'default now' }),
  }),
});

builder.queryField('costBreakdown', (t) =>
  t.field({
    type: CostBreakdownRef,
    args: rangeArgs,
    resolve: (_r, a, ctx) => ctx.services.costs.breakdown(ctx.principal, withoutNulls(a)),
  }),
);

builder.queryField('costSeries', (t) =>
  t.field({
    type: CostSeriesRef,
    description:
      'Cost per hour of the same window or range as costBreakdown (at most 720 points, zero-filled)',
    args: rangeArgs,
    resolve: async (_r, a, ctx) => {
      const { range, points } = await ctx.services.costs.series(ctx.principal, withoutNulls(a));
      return { ...range, points };
    },
  }),
);

builder.queryField('modelPricing', (t) =>
  t.connection({
    type: ModelPricingRef,
    description: `Model prices by model id; pages of ${PRICING_PAGE} unless first says otherwise`,
    args: {
      history: t.arg.boolean({
        required: false,
        description: 'every dated record instead of the one in effect now',
      }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) =>
      resolveArrayConnection(
        { args: a, defaultSize: PRICING_PAGE, maxSize: PRICING_PAGE },
        ctx.services.costs.listModels(ctx.principal, {
          projectId: a.projectId,
          history: a.history ?? false,
        }),
      ),
  }),
);

/** A cache price the caller set to null is cleared; one left out is kept. */
function priceInput(i: {
  provider?: string | null;
  inputPer1mUsd?: number | null;
  outputPer1mUsd?: number | null;
  cacheReadPer1mUsd?: number | null;
  cacheWritePer1mUsd?: number | null;
  effectiveFrom?: Date | null;
}) {
  return {
    ...withoutNulls(i),
    cacheReadPer1mUsd: i.cacheReadPer1mUsd,
    cacheWritePer1mUsd: i.cacheWritePer1mUsd,
  };
}

builder.mutationField('addModelPricing', (t) =>
  t.field({
    type: ModelPricingRef,
    args: {
      modelId: t.arg.string({ required: true }),
      input: t.arg({ type: PricingInput, required: true }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.costs.addModel(ctx.principal, a.modelId, priceInput(a.input), a.projectId),
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
    resolve: (_r, a, ctx) =>
      ctx.services.costs.updateModel(ctx.principal, a.modelId, priceInput(a.input), a.projectId),
  }),
);

builder.mutationField('deleteModelPricing', (t) =>
  t.int({
    description: "Removes the project's own records of a model; returns how many were removed",
    args: {
      modelId: t.arg.string({ required: true }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: async (_r, a, ctx) =>
      (await ctx.services.costs.deleteModel(ctx.principal, a.modelId, a.projectId)).removed,
  }),
);
