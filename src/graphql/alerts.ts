import { alertCursor } from '../alerts/inbox.ts';
import { alertSource, type AlertSource } from '../alerts/source.ts';
import {
  SNOOZE_DESCRIPTION,
  type Alert,
  type AlertConfig,
  type AlertCounts,
  type WebhookTestResult,
} from '../model/alert.ts';
import { SpyglassError } from '../errors.ts';
import { builder, toConnection } from './builder.ts';

/** Alerts over GraphQL (docs/api.md#graphql): the same AlertService, roles and scoping as /api/alerts/*. */

type SourceFields = Partial<
  Record<'sloId' | 'serverName' | 'toolName' | 'metric' | 'sessionId' | 'agentName', string | null>
>;

const SourceRef = builder.objectRef<AlertSource>('AlertSource').implement({
  description:
    'What raised the alert, to link to it (docs/alerts.md#what-raised-it); only the fields of its kind are set',
  fields: (t) => {
    const part = (k: keyof SourceFields) =>
      t.string({ nullable: true, resolve: (s) => (s as SourceFields)[k] ?? null });
    return {
      kind: t.exposeString('kind', { description: 'slo, anomaly, session, server or agent' }),
      sloId: part('sloId'),
      serverName: part('serverName'),
      toolName: part('toolName'),
      metric: part('metric'),
      sessionId: part('sessionId'),
      agentName: part('agentName'),
    };
  },
});

const AlertRef = builder.objectRef<Alert>('Alert').implement({
  description: 'An inbox record (docs/alerts.md#the-inbox-record)',
  fields: (t) => ({
    id: t.exposeString('id'),
    type: t.exposeString('type'),
    severity: t.exposeString('severity'),
    title: t.exposeString('title'),
    message: t.exposeString('message'),
    projectId: t.exposeString('projectId'),
    serverName: t.exposeString('serverName', { nullable: true }),
    agentName: t.exposeString('agentName', { nullable: true }),
    sessionId: t.exposeString('sessionId', { nullable: true }),
    status: t.exposeString('status'),
    firedAt: t.field({ type: 'DateTime', resolve: (a) => a.firedAt }),
    acknowledgedAt: t.field({ type: 'DateTime', nullable: true, resolve: (a) => a.acknowledgedAt }),
    resolvedAt: t.field({ type: 'DateTime', nullable: true, resolve: (a) => a.resolvedAt }),
    snoozedUntil: t.field({ type: 'DateTime', nullable: true, resolve: (a) => a.snoozedUntil }),
    fields: t.field({ type: 'JSON', resolve: (a) => a.fields }),
    delivery: t.exposeString('delivery'),
    deliveryError: t.exposeString('deliveryError', { nullable: true }),
    source: t.field({ type: SourceRef, nullable: true, resolve: (a) => alertSource(a) }),
  }),
});

const SeverityCountsRef = builder
  .objectRef<AlertCounts['bySeverity']>('AlertSeverityCounts')
  .implement({
    fields: (t) => ({
      critical: t.exposeInt('critical'),
      warning: t.exposeInt('warning'),
      info: t.exposeInt('info'),
    }),
  });

const CountsRef = builder.objectRef<AlertCounts>('AlertCounts').implement({
  fields: (t) => ({
    firing: t.exposeInt('firing'),
    acknowledged: t.exposeInt('acknowledged'),
    snoozed: t.exposeInt('snoozed'),
    needsAttention: t.exposeInt('needsAttention'),
    bySeverity: t.field({ type: SeverityCountsRef, resolve: (c) => c.bySeverity }),
  }),
});

const ConfigRef = builder.objectRef<AlertConfig>('AlertConfig').implement({
  description: 'Alert config (docs/alerts.md); the webhook URL is a secret and only shown masked',
  fields: (t) => ({
    alertTypes: t.field({ type: 'JSON', resolve: (c) => c.alertTypes }),
    chatWebhookConfigured: t.exposeBoolean('chatWebhookConfigured'),
    chatWebhookSource: t.exposeString('chatWebhookSource', { nullable: true }),
    chatWebhookMasked: t.exposeString('chatWebhookMasked', { nullable: true }),
  }),
});

const TestResultRef = builder.objectRef<WebhookTestResult>('AlertTestResult').implement({
  fields: (t) => ({
    ok: t.exposeBoolean('ok'),
    error: t.string({ nullable: true, resolve: (r) => (r.ok ? null : r.error) }),
  }),
});

builder.queryField('alerts', (t) =>
  t.connection({
    type: AlertRef,
    description: 'The alert inbox, newest first; status defaults to the active view (not resolved)',
    args: {
      projectId: t.arg.string({ required: false }),
      status: t.arg.string({ required: false }),
      type: t.arg.string({ required: false }),
      severity: t.arg.string({ required: false }),
    },
    resolve: async (_r, a, ctx) => {
      const page = await ctx.services.alerts.inbox(ctx.principal, {
        projectId: a.projectId,
        status: a.status ?? undefined,
        type: a.type ?? undefined,
        severity: a.severity ?? undefined,
        limit: a.first,
        cursor: a.after ?? undefined,
      });
      return toConnection(page.alerts, alertCursor, page.nextCursor !== null);
    },
  }),
);

builder.queryField('alert', (t) =>
  t.field({
    type: AlertRef,
    nullable: true,
    description:
      "One alert of the caller's project by id (the dashboard's shared link); null when there is none",
    args: { id: t.arg.string({ required: true }), projectId: t.arg.string({ required: false }) },
    resolve: (_r, a, ctx) => ctx.services.alerts.get(ctx.principal, a.id, a.projectId),
  }),
);

builder.queryField('alertCounts', (t) =>
  t.field({
    type: CountsRef,
    args: { projectId: t.arg.string({ required: false }) },
    resolve: (_r, a, ctx) => ctx.services.alerts.counts(ctx.principal, a.projectId),
  }),
);

builder.queryField('alertConfig', (t) =>
  t.field({
    type: ConfigRef,
    args: { projectId: t.arg.string({ required: false }) },
    resolve: (_r, a, ctx) => ctx.services.alerts.getConfig(ctx.principal, a.projectId),
  }),
);

for (const [name, action] of [
  ['acknowledgeAlert', 'ack'],
  ['resolveAlert', 'resolve'],
] as const) {
  builder.mutationField(name, (t) =>
    t.field({
      type: AlertRef,
      args: { id: t.arg.string({ required: true }), projectId: t.arg.string({ required: false }) },
      resolve: (_r, a, ctx) =>
        ctx.services.alerts.move(ctx.principal, a.id, { action }, a.projectId),
    }),
  );
}

builder.mutationField('snoozeAlert', (t) =>
  t.field({
    type: AlertRef,
    args: {
      id: t.arg.string({ required: true }),
      minutes: t.arg.int({ required: true, description: SNOOZE_DESCRIPTION }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.alerts.move(
        ctx.principal,
        a.id,
        { action: 'snooze', minutes: a.minutes },
        a.projectId,
      ),
  }),
);

builder.mutationField('saveAlertConfig', (t) =>
  t.field({
    type: ConfigRef,
    description:
      'alertTypes: toggles to change; chatWebhook: a URL to save, null or "" to clear, omitted to keep',
    args: {
      projectId: t.arg.string({ required: false }),
      alertTypes: t.arg({ type: 'JSON', required: false }),
      chatWebhook: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.alerts.saveConfig(
        ctx.principal,
        { alertTypes: toggles(a.alertTypes), chatWebhook: a.chatWebhook },
        a.projectId,
      ),
  }),
);

builder.mutationField('testAlertWebhook', (t) =>
  t.field({
    type: TestResultRef,
    args: { projectId: t.arg.string({ required: false }) },
    resolve: (_r, a, ctx) => ctx.services.alerts.test(ctx.principal, a.projectId),
  }),
);

/**
 * The JSON argument typed as toggles (the scalar carries any JSON): booleans by key, else a 422
 * naming alert_types; AlertService checks that each key is an alert type.
 */
function toggles(v: unknown): Record<string, boolean> | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'object' && !Array.isArray(v)) {
    if (Object.values(v).every((x) => typeof x === 'boolean')) return v as Record<string, boolean>;
  }
  throw new SpyglassError('validation', 'invalid alert config', {
    issues: [
      {
        loc: ['body', 'alert_types'],
        msg: 'Input should be an object of booleans keyed by alert type',
        type: 'dict_type',
      },
    ],
  });
}
