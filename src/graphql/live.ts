import { scopeProject } from '../auth/principal.ts';
import type { AlertFiredEvent, HealthCheckEvent, LiveEvent, SpanNewEvent } from '../live/bus.ts';
import { iterateEvents } from '../live/subscribe.ts';
import { builder } from './builder.ts';

builder.subscriptionType({});

const SpanEventRef = builder.objectRef<SpanNewEvent['data']>('SpanEvent').implement({
  description: 'A span just stored (the live span:new event)',
  fields: (t) => ({
    spanId: t.exposeString('span_id'),
    traceId: t.exposeString('trace_id', { nullable: true }),
    sessionId: t.exposeString('session_id', { nullable: true }),
    agentName: t.exposeString('agent_name', { nullable: true }),
    serverName: t.exposeString('server_name'),
    toolName: t.exposeString('tool_name'),
    spanType: t.exposeString('span_type'),
    status: t.exposeString('status'),
    latencyMs: t.exposeFloat('latency_ms'),
    projectId: t.exposeString('project_id'),
    startedAt: t.field({ type: 'DateTime', resolve: (e) => new Date(e.started_at) }),
  }),
});

const HealthEventRef = builder.objectRef<HealthCheckEvent['data']>('HealthCheckEvent').implement({
  fields: (t) => ({
    serverName: t.exposeString('server_name'),
    status: t.exposeString('status'),
    latencyMs: t.exposeFloat('latency_ms', { nullable: true }),
  }),
});

const AlertEventRef = builder.objectRef<AlertFiredEvent['data']>('AlertEvent').implement({
  fields: (t) => ({ data: t.field({ type: 'JSON', resolve: (e) => e }) }),
});

builder.subscriptionField('spanNew', (t) =>
  t.field({
    type: SpanEventRef,
    args: { projectId: t.arg.string({ required: false }) },
    subscribe: (_r, a, ctx) => {
      const project = scopeProject(ctx.principal, a.projectId);
      return iterateEvents(ctx.services.bus, (e: LiveEvent): e is SpanNewEvent => e.type === 'span:new' && (project === null || e.data.project_id === project));
    },
    resolve: (e: SpanNewEvent) => e.data,
  }),
);

builder.subscriptionField('healthCheck', (t) =>
  t.field({
    type: HealthEventRef,
    args: { serverName: t.arg.string({ required: false }) },
    subscribe: (_r, a, ctx) => {
      const project = ctx.principal.projectId;
      return iterateEvents(
        ctx.services.bus,
        (e: LiveEvent): e is HealthCheckEvent =>
          e.type === 'health:check' && (!a.serverName || e.data.server_name === a.serverName) && (project === null || !e.data.project_id || e.data.project_id === project),
      );
    },
    resolve: (e: HealthCheckEvent) => e.data,
  }),
);

builder.subscriptionField('alertFired', (t) =>
  t.field({
    type: AlertEventRef,
    subscribe: (_r, _a, ctx) => {
      const project = ctx.principal.projectId;
      return iterateEvents(ctx.services.bus, (e: LiveEvent): e is AlertFiredEvent => e.type === 'alert:fired' && (project === null || !e.data.project_id || e.data.project_id === project));
    },
    resolve: (e: AlertFiredEvent) => e.data,
  }),
);
