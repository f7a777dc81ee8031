import type { PreventionConfigJson } from '../prevention/config-service.ts';
import { builder, requireAdmin, type Context } from './builder.ts';

const PreventionConfigRef = builder.objectRef<PreventionConfigJson>('PreventionConfig').implement({
  description:
    'Guard settings the SDK enforces for an agent (spec §2.9, decisions §7): a project default or an agent override',
  fields: (t) => ({
    id: t.exposeString('id', {
      nullable: true,
      description: 'null when nothing is stored (the spec defaults answer)',
    }),
    projectId: t.exposeString('project_id'),
    agentName: t.exposeString('agent_name', { description: '`*` for the project default' }),
    isAgentOverride: t.exposeBoolean('is_agent_override'),
    source: t.exposeString('source', {
      description:
        'agent (its override), project (the project default) or default (nothing stored: the built-in defaults)',
    }),
    loopEnabled: t.exposeBoolean('loop_enabled'),
    loopThreshold: t.exposeInt('loop_threshold'),
    loopAction: t.exposeString('loop_action', { description: 'warn or terminate' }),
    maxSteps: t.exposeInt('max_steps', { nullable: true, description: 'null = no limit' }),
    maxCostUsd: t.exposeFloat('max_cost_usd', { nullable: true, description: 'null = no limit' }),
    maxWallTimeS: t.exposeFloat('max_wall_time_s', {
      nullable: true,
      description: 'seconds; null = no limit',
    }),
    budgetSoftAlert: t.exposeFloat('budget_soft_alert', {
      nullable: true,
      description: 'a fraction of maxCostUsd below 1, else an amount in USD below it',
    }),
    cbEnabled: t.exposeBoolean('cb_enabled'),
    cbFailureThreshold: t.exposeInt('cb_failure_threshold'),
    cbCooldownSeconds: t.exposeFloat('cb_cooldown_seconds'),
    cbHalfOpenMaxCalls: t.exposeInt('cb_half_open_max_calls'),
    updatedAt: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (c) => (c.updated_at === null ? null : new Date(c.updated_at)),
    }),
  }),
});

const PreventionConfigInput = builder.inputType('PreventionConfigInput', {
  description:
    'The flat config; setPreventionConfig gives omitted fields their defaults, updatePreventionConfig keeps them. null = no limit',
  fields: (t) => ({
    loopEnabled: t.boolean({ required: false }),
    loopThreshold: t.int({ required: false }),
    loopAction: t.string({ required: false, description: 'warn or terminate' }),
    maxSteps: t.int({ required: false }),
    maxCostUsd: t.float({ required: false }),
    maxWallTimeS: t.float({ required: false }),
    budgetSoftAlert: t.float({ required: false }),
    cbEnabled: t.boolean({ required: false }),
    cbFailureThreshold: t.int({ required: false }),
    cbCooldownSeconds: t.float({ required: false }),
    cbHalfOpenMaxCalls: t.int({ required: false }),
  }),
});

/** camelCase input → the REST body, so both edges share one validation; explicit nulls are kept. */
function toBody(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input))
    if (v !== undefined) out[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = v;
  return out;
}

const svc = (ctx: Context) => ctx.services.prevention;
const readProject = (ctx: Context, requested: string | null | undefined) =>
  svc(ctx).project(ctx.principal, requested);
const writeScope = (ctx: Context, a: { agentName?: string | null; projectId?: string | null }) => {
  requireAdmin(ctx);
  return { projectId: readProject(ctx, a.projectId), agentName: a.agentName ?? undefined };
};

builder.queryField('preventionConfig', (t) =>
  t.field({
    type: PreventionConfigRef,
    description:
      "The agent's effective config (its override, else the project default), or the project default without agentName",
    args: {
      agentName: t.arg.string({ required: false }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) => {
      const project = readProject(ctx, a.projectId);
      return a.agentName == null
        ? svc(ctx).projectDefault(project)
        : svc(ctx).effective(project, a.agentName);
    },
  }),
);

builder.queryField('preventionConfigs', (t) =>
  t.field({
    type: [PreventionConfigRef],
    description: 'Every stored config of the project, the project default first',
    args: { projectId: t.arg.string({ required: false }) },
    resolve: (_r, a, ctx) => svc(ctx).list(readProject(ctx, a.projectId)),
  }),
);

builder.mutationField('setPreventionConfig', (t) =>
  t.field({
    type: PreventionConfigRef,
    description: 'Creates or replaces a config; omitted fields take the defaults',
    args: {
      agentName: t.arg.string({ required: false }),
      projectId: t.arg.string({ required: false }),
      input: t.arg({ type: PreventionConfigInput, required: true }),
    },
    resolve: (_r, a, ctx) => svc(ctx).replace(ctx.principal, writeScope(ctx, a), toBody(a.input)),
  }),
);

builder.mutationField('updatePreventionConfig', (t) =>
  t.field({
    type: PreventionConfigRef,
    description: 'Changes only the fields given, over the stored config (or the defaults)',
    args: {
      agentName: t.arg.string({ required: false }),
      projectId: t.arg.string({ required: false }),
      input: t.arg({ type: PreventionConfigInput, required: true }),
    },
    resolve: (_r, a, ctx) => svc(ctx).update(ctx.principal, writeScope(ctx, a), toBody(a.input)),
  }),
);

builder.mutationField('deletePreventionConfig', (t) =>
  t.field({
    type: PreventionConfigRef,
    description:
      'Removes an agent override (the agent falls back to the project default) or the project default (back to the spec defaults); answers the config now in effect',
    args: {
      agentName: t.arg.string({ required: false }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) => svc(ctx).remove(ctx.principal, writeScope(ctx, a)),
  }),
);
