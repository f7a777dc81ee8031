import type { PreventionInput, ScopedPreventionConfig } from '../model/prevention-config.ts';
import { builder, type Context } from './builder.ts';

const PreventionConfigRef = builder
  .objectRef<ScopedPreventionConfig>('PreventionConfig')
  .implement({
    description:
      'Guard settings the SDK enforces for an agent (docs/prevention.md): a project default or an agent override',
    fields: (t) => ({
      id: t.exposeString('id', {
        nullable: true,
        description: 'null when nothing is stored (the spec defaults answer)',
      }),
      projectId: t.exposeString('projectId'),
      agentName: t.exposeString('agentName', { description: '`*` for the project default' }),
      isAgentOverride: t.exposeBoolean('isAgentOverride'),
      source: t.exposeString('source', {
        description:
          'agent (its override), project (the project default) or default (nothing stored: the built-in defaults)',
      }),
      loopEnabled: t.boolean({ resolve: (c) => c.config.loop_enabled }),
      loopThreshold: t.int({ resolve: (c) => c.config.loop_threshold }),
      loopAction: t.string({
        resolve: (c) => c.config.loop_action,
        description: 'warn or terminate',
      }),
      maxSteps: t.int({
        resolve: (c) => c.config.max_steps,
        nullable: true,
        description: 'null = no limit',
      }),
      maxCostUsd: t.float({
        resolve: (c) => c.config.max_cost_usd,
        nullable: true,
        description: 'null = no limit',
      }),
      maxWallTimeS: t.float({
        resolve: (c) => c.config.max_wall_time_s,
        nullable: true,
        description: 'seconds; null = no limit',
      }),
      budgetSoftAlert: t.float({
        resolve: (c) => c.config.budget_soft_alert,
        nullable: true,
        description: 'a fraction of maxCostUsd below 1, else an amount in USD below it',
      }),
      cbEnabled: t.boolean({ resolve: (c) => c.config.cb_enabled }),
      cbFailureThreshold: t.int({ resolve: (c) => c.config.cb_failure_threshold }),
      cbCooldownSeconds: t.float({ resolve: (c) => c.config.cb_cooldown_seconds }),
      cbHalfOpenMaxCalls: t.int({ resolve: (c) => c.config.cb_half_open_max_calls }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: true }),
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

/** The input as the config's flat fields (the shape the SDK shares); explicit nulls are kept. */
function toInput(i: typeof PreventionConfigInput.$inferInput): PreventionInput {
  return {
    fields: {
      loop_enabled: i.loopEnabled,
      loop_threshold: i.loopThreshold,
      loop_action: i.loopAction,
      max_steps: i.maxSteps,
      max_cost_usd: i.maxCostUsd,
      max_wall_time_s: i.maxWallTimeS,
      budget_soft_alert: i.budgetSoftAlert,
      cb_enabled: i.cbEnabled,
      cb_failure_threshold: i.cbFailureThreshold,
      cb_cooldown_seconds: i.cbCooldownSeconds,
      cb_half_open_max_calls: i.cbHalfOpenMaxCalls,
    },
  };
}

const svc = (ctx: Context) => ctx.services.prevention;
const scope = (a: { agentName?: string | null; projectId?: string | null }) => ({
  projectId: a.projectId,
  agentName: a.agentName ?? undefined,
});

builder.queryField('preventionConfig', (t) =>
  t.field({
    type: PreventionConfigRef,
    description:
      "The agent's effective config (its override, else the project default), or the project default without agentName",
    args: {
      agentName: t.arg.string({ required: false }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) => svc(ctx).effective(ctx.principal, scope(a)),
  }),
);

builder.queryField('preventionConfigs', (t) =>
  t.field({
    type: [PreventionConfigRef],
    description: 'Every stored config of the project, the project default first',
    args: { projectId: t.arg.string({ required: false }) },
    resolve: (_r, a, ctx) => svc(ctx).list(ctx.principal, a.projectId),
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
    resolve: (_r, a, ctx) => svc(ctx).replace(ctx.principal, scope(a), toInput(a.input)),
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
    resolve: (_r, a, ctx) => svc(ctx).update(ctx.principal, scope(a), toInput(a.input)),
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
    resolve: (_r, a, ctx) => svc(ctx).remove(ctx.principal, scope(a)),
  }),
);
