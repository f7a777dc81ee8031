import { scopeProject } from '../auth/principal.ts';
import { SpyglassError } from '../errors.ts';
import type { Interest } from '../live/bus.ts';
import { iterateEvents, type EventStream } from '../live/subscribe.ts';
import { toAlertJson } from '../model/alert-json.ts';
import type {
  AlertFiredEvent,
  HealthCheck,
  HealthCheckEvent,
  LiveEvent,
  LiveSpan,
  SpanNewEvent,
} from '../model/live-event.ts';
import type { Alert } from '../model/alert.ts';
import { builder, type Context } from './builder.ts';

builder.subscriptionType({});

/** The bus's domain events, field by field (src/model/live-event.ts). */
const SpanEventRef = builder.objectRef<LiveSpan>('SpanEvent').implement({
  description: 'A span just stored (the live span:new event)',
  fields: (t) => ({
    spanId: t.exposeString('spanId'),
    traceId: t.exposeString('traceId', { nullable: true }),
    parentSpanId: t.string({
      nullable: true,
      description: 'null for a root span (a root agent span arriving ends its run)',
      resolve: (e) => e.parentSpanId ?? null,
    }),
    error: t.string({
      nullable: true,
      description: "The span's error, its first 500 characters",
      resolve: (e) => e.error ?? null,
    }),
    sessionId: t.exposeString('sessionId', { nullable: true }),
    agentName: t.exposeString('agentName', { nullable: true }),
    serverName: t.exposeString('serverName'),
    toolName: t.exposeString('toolName'),
    spanType: t.exposeString('spanType'),
    status: t.exposeString('status'),
    latencyMs: t.exposeFloat('latencyMs'),
    projectId: t.exposeString('projectId'),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    modelId: t.string({ nullable: true, resolve: (e) => e.modelId ?? null }),
    inputTokens: t.int({ nullable: true, resolve: (e) => e.inputTokens ?? null }),
    outputTokens: t.int({ nullable: true, resolve: (e) => e.outputTokens ?? null }),
    targetAgentName: t.string({ nullable: true, resolve: (e) => e.targetAgentName ?? null }),
    finishReason: t.string({ nullable: true, resolve: (e) => e.finishReason ?? null }),
    cacheReadTokens: t.int({ nullable: true, resolve: (e) => e.cacheReadTokens ?? null }),
    cacheCreationTokens: t.int({ nullable: true, resolve: (e) => e.cacheCreationTokens ?? null }),
    thinkingTokens: t.int({ nullable: true, resolve: (e) => e.thinkingTokens ?? null }),
    lineageProvenance: t.string({ nullable: true, resolve: (e) => e.lineageProvenance ?? null }),
    lineageStatus: t.string({ nullable: true, resolve: (e) => e.lineageStatus ?? null }),
    schemaVersion: t.string({ nullable: true, resolve: (e) => e.schemaVersion ?? null }),
    replayOf: t.string({ nullable: true, resolve: (e) => e.replayOf ?? null }),
  }),
});

const HealthEventRef = builder.objectRef<HealthCheck>('HealthCheckEvent').implement({
  fields: (t) => ({
    serverName: t.exposeString('serverName'),
    status: t.exposeString('status'),
    latencyMs: t.exposeFloat('latencyMs', { nullable: true }),
  }),
});

const AlertEventRef = builder.objectRef<Alert>('AlertEvent').implement({
  fields: (t) => ({
    // The inbox record in the REST API's snake_case (docs/alerts.md#the-inbox-record).
    data: t.field({ type: 'JSON', resolve: (a) => toAlertJson(a) }),
  }),
});

builder.subscriptionField('spanNew', (t) =>
  t.field({
    type: SpanEventRef,
    args: {
      projectId: t.arg.string({ required: false }),
      sessionId: t.arg.string({
        required: false,
        description: "Only this session's spans (the dashboard's session page)",
      }),
    },
    subscribe: (_r, a, ctx) =>
      openStream(
        ctx,
        { type: 'span:new', projectId: scopeProject(ctx.principal, a.projectId) },
        (e: LiveEvent): e is SpanNewEvent =>
          e.type === 'span:new' && (!a.sessionId || e.data.sessionId === a.sessionId),
      ),
    resolve: (e: SpanNewEvent) => e.data,
  }),
);

builder.subscriptionField('healthCheck', (t) =>
  t.field({
    type: HealthEventRef,
    args: { serverName: t.arg.string({ required: false }) },
    subscribe: (_r, a, ctx) =>
      openStream(
        ctx,
        { type: 'health:check', projectId: ctx.principal.projectId },
        (e: LiveEvent): e is HealthCheckEvent =>
          e.type === 'health:check' && (!a.serverName || e.data.serverName === a.serverName),
      ),
    resolve: (e: HealthCheckEvent) => e.data,
  }),
);

builder.subscriptionField('alertFired', (t) =>
  t.field({
    type: AlertEventRef,
    subscribe: (_r, _a, ctx) =>
      openStream(
        ctx,
        { type: 'alert:fired', projectId: ctx.principal.projectId },
        (e: LiveEvent): e is AlertFiredEvent => e.type === 'alert:fired',
      ),
    resolve: (e: AlertFiredEvent) => e.data,
  }),
);

/**
 * A subscription's event stream, counted in the live budget (docs/api.md#live-clients-one-budget): on a WebSocket as
 * one of the connection's subscriptions; over HTTP (GraphQL over SSE) the request is a live
 * connection of its own, ended when its key is revoked.
 */
async function openStream<T extends LiveEvent>(
  ctx: Context,
  interest: Interest,
  accept: (e: LiveEvent) => e is T,
): Promise<EventStream<T>> {
  const { bus, liveClients, delivery } = ctx.services;
  const buffer = liveClients.limits.buffer;
  if (ctx.live)
    return iterateEvents(bus, interest, accept, {
      buffer,
      delivery,
      onClose: ctx.live.addSubscription(),
      ready: ctx.live.ready,
    });
  let stream: EventStream<T> | null = null;
  const conn = await liveClients.connect('graphql-sse', ctx.principal, (reason) =>
    stream?.end(reason),
  );
  if ('refused' in conn) throw new SpyglassError('rate_limited', conn.refused);
  const uncount = conn.addSubscription();
  // The HTTP response pulls from the stream only as fast as its socket drains.
  stream = iterateEvents(bus, interest, accept, {
    buffer,
    delivery,
    onClose: () => {
      uncount();
      conn.release();
    },
  });
  return stream;
}
