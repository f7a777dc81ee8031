import { resolveArrayConnection } from '@pothos/plugin-relay';
import { describeRange } from '../model/int-range.ts';
import type { Slo, SloEvaluation } from '../model/slo.ts';
import { SLO_WINDOW_HOURS } from '../slos/validate.ts';
import { builder } from './builder.ts';

const SloRef = builder.objectRef<Slo>('Slo').implement({
  description: 'A service level objective for one agent (docs/slos.md)',
  fields: (t) => ({
    sloId: t.exposeString('sloId'),
    projectId: t.exposeString('projectId'),
    agentName: t.exposeString('agentName'),
    metric: t.exposeString('metric', { description: 'success_rate or latency_p99' }),
    threshold: t.exposeFloat('threshold', {
      description: 'success_rate: a percentage (0, 100]; latency_p99: milliseconds',
    }),
    windowHours: t.exposeInt('windowHours'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const SloStatusRef = builder.objectRef<SloEvaluation>('SloStatus').implement({
  description: 'An SLO evaluated now over the sessions of its window (docs/slos.md)',
  fields: (t) => ({
    sloId: t.exposeString('sloId'),
    agentName: t.exposeString('agentName'),
    metric: t.exposeString('metric'),
    target: t.exposeFloat('target'),
    currentValue: t.exposeFloat('currentValue', {
      nullable: true,
      description: 'null when the window has no sessions',
    }),
    windowHours: t.exposeInt('windowHours'),
    status: t.exposeString('status', { description: 'ok, breached or no_data' }),
    sampleSize: t.exposeInt('sampleSize'),
    evaluatedAt: t.expose('evaluatedAt', { type: 'DateTime' }),
    since: t.expose('since', {
      type: 'DateTime',
      nullable: true,
      description:
        'when the SLO entered this status (for a breached one: when the breach began); kept across evaluations',
    }),
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
    windowHours: t.int({ required: false, description: describeRange(SLO_WINDOW_HOURS) }),
  });
const SloInput = builder.inputType('SloInput', { fields: fields(true) });
const SloPatchInput = builder.inputType('SloPatchInput', {
  description: 'Fields to change; omitted fields stay as they are',
  fields: fields(false),
});

builder.queryField('slos', (t) =>
  t.field({
    type: [SloRef],
    args: { projectId: t.arg.string({ required: false }) },
    resolve: (_r, a, ctx) => ctx.services.slos.list(ctx.principal, a.projectId),
  }),
);

builder.queryField('slosConnection', (t) =>
  t.connection({
    type: SloRef,
    description: "The project's SLOs, oldest first (GET /api/slos)",
    args: { projectId: t.arg.string({ required: false }) },
    resolve: async (_r, a, ctx) =>
      resolveArrayConnection({ args: a }, await ctx.services.slos.list(ctx.principal, a.projectId)),
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
    resolve: (_r, a, ctx) => ctx.services.slos.status(ctx.principal, a),
  }),
);

builder.mutationField('createSlo', (t) =>
  t.field({
    type: SloRef,
    args: {
      input: t.arg({ type: SloInput, required: true }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) => ctx.services.slos.create(ctx.principal, a.input, a.projectId),
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
    resolve: (_r, a, ctx) => ctx.services.slos.update(ctx.principal, a.sloId, a.input, a.projectId),
  }),
);

builder.mutationField('deleteSlo', (t) =>
  t.boolean({
    args: { sloId: t.arg.string({ required: true }), projectId: t.arg.string({ required: false }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.slos.delete(ctx.principal, a.sloId, a.projectId);
      return true;
    },
  }),
);
