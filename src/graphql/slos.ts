import type { SloJson } from '../slos/slo-service.ts';
import type { SloStatusItem } from '../slos/status.ts';
import { builder, requireAdmin, type Context } from './builder.ts';

const SloRef = builder.objectRef<SloJson>('Slo').implement({
  description: 'A service level objective for one agent (spec §2.10)',
  fields: (t) => ({
    sloId: t.exposeString('slo_id'),
    projectId: t.exposeString('project_id'),
    agentName: t.exposeString('agent_name'),
    metric: t.exposeString('metric', { description: 'success_rate or latency_p99' }),
    threshold: t.exposeFloat('threshold', {
      description: 'success_rate: a percentage (0, 100]; latency_p99: milliseconds',
    }),
    windowHours: t.exposeInt('window_hours'),
    createdAt: t.field({ type: 'DateTime', resolve: (s) => new Date(s.created_at) }),
    updatedAt: t.field({ type: 'DateTime', resolve: (s) => new Date(s.updated_at) }),
  }),
});

const SloStatusRef = builder.objectRef<SloStatusItem>('SloStatus').implement({
  description: 'An SLO evaluated now over the sessions of its window (spec §3.5, decisions §8)',
  fields: (t) => ({
    sloId: t.exposeString('slo_id'),
    agentName: t.exposeString('agent_name'),
    metric: t.exposeString('metric'),
    target: t.exposeFloat('target'),
    currentValue: t.exposeFloat('current_value', {
      nullable: true,
      description: 'null when the window has no sessions',
    }),
    windowHours: t.exposeInt('window_hours'),
    status: t.exposeString('status', { description: 'ok, breached or no_data' }),
    sampleSize: t.exposeInt('sample_size'),
    evaluatedAt: t.field({ type: 'DateTime', resolve: (s) => new Date(s.evaluated_at) }),
  }),
});

const fields =
  (required: boolean) => (t: Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0]) => ({
    agentName: t.string({ required }),
    metric: t.string({ required, description: 'success_rate or latency_p99' }),
    threshold: t.float({
      required,
      description:
        'success_rate: a percentage, a value in (0, 1] read as a fraction (1 = 100 %); latency_p99: milliseconds',
    }),
    windowHours: t.int({ required: false, description: '1 to 720; default 24' }),
  });
const SloInput = builder.inputType('SloInput', { fields: fields(true) });
const SloPatchInput = builder.inputType('SloPatchInput', {
  description: 'Fields to change; omitted fields stay as they are',
  fields: fields(false),
});

/** The REST body the input stands for, so both edges share one validation. */
function toBody(i: {
  agentName?: string | null;
  metric?: string | null;
  threshold?: number | null;
  windowHours?: number | null;
}) {
  return Object.fromEntries(
    Object.entries({
      agent_name: i.agentName,
      metric: i.metric,
      threshold: i.threshold,
      window_hours: i.windowHours,
    }).filter(([, v]) => v !== undefined),
  );
}

const project = (ctx: Context, requested: string | null | undefined) =>
  ctx.services.slos.project(ctx.principal, requested);

builder.queryField('slos', (t) =>
  t.field({
    type: [SloRef],
    args: { projectId: t.arg.string({ required: false }) },
    resolve: (_r, a, ctx) => ctx.services.slos.list(project(ctx, a.projectId)),
  }),
);

builder.queryField('sloStatus', (t) =>
  t.field({
    type: [SloStatusRef],
    description: "Evaluates the project's SLOs (or one agent's) now",
    args: {
      agentName: t.arg.string({ required: false }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.slos.evaluate(project(ctx, a.projectId), undefined, a.agentName ?? undefined),
  }),
);

builder.mutationField('createSlo', (t) =>
  t.field({
    type: SloRef,
    args: {
      input: t.arg({ type: SloInput, required: true }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) => {
      requireAdmin(ctx);
      return ctx.services.slos.create(project(ctx, a.projectId), toBody(a.input));
    },
  }),
);

builder.mutationField('updateSlo', (t) =>
  t.field({
    type: SloRef,
    args: {
      sloId: t.arg.string({ required: true }),
      input: t.arg({ type: SloPatchInput, required: true }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) => {
      requireAdmin(ctx);
      return ctx.services.slos.update(project(ctx, a.projectId), a.sloId, toBody(a.input));
    },
  }),
);

builder.mutationField('deleteSlo', (t) =>
  t.boolean({
    args: { sloId: t.arg.string({ required: true }), projectId: t.arg.string({ required: false }) },
    resolve: async (_r, a, ctx) => {
      requireAdmin(ctx);
      await ctx.services.slos.delete(project(ctx, a.projectId), a.sloId);
      return true;
    },
  }),
);
