import { scopeProject } from '../auth/principal.ts';
import { SpyglassError } from '../errors.ts';
import type {
  AlertFiredEvent,
  HealthCheckEvent,
  Interest,
  LiveEvent,
  SpanNewEvent,
} from '../live/bus.ts';
import { iterateEvents, type EventStream } from '../live/subscribe.ts';
import { builder, type Context } from './builder.ts';

builder.subscriptionType({});

const SpanEventRef = builder.objectRef<SpanNewEvent['data']>('SpanEvent').implement({
  description: 'A span just stored (the live span:new event)',
  fields: (t) => ({
    spanId: t.exposeString('span_id'),
    traceId: t.exposeString('trace_id', { nullable: true }),
    parentSpanId: t.string({
      nullable: true,
      description: 'null for a root span (a root agent span arriving ends its run)',
      resolve: (e) => e.parent_span_id ?? null,
    }),
    error: t.string({
      nullable: true,
      description: "The span's error, its first 500 characters",
      resolve: (e) => e.error ?? null,
    }),
    sessionId: t.exposeString('session_id', { nullable: true }),
    agentName: t.exposeString('agent_name', { nullable: true }),
    serverName: t.exposeString('server_name'),
    toolName: t.exposeString('tool_name'),
    spanType: t.exposeString('span_type'),
    status: t.exposeString('status'),
    latencyMs: t.exposeFloat('latency_ms'),
    projectId: t.exposeString('project_id'),
    startedAt: t.field({ type: 'DateTime', resolve: (e) => new Date(e.started_at) }),
    modelId: t.string({ nullable: true, resolve: (e) => e.model_id ?? null }),
    inputTokens: t.int({ nullable: true, resolve: (e) => e.input_tokens ?? null }),
    outputTokens: t.int({ nullable: true, resolve: (e) => e.output_tokens ?? null }),
    targetAgentName: t.string({ nullable: true, resolve: (e) => e.target_agent_name ?? null }),
    finishReason: t.string({ nullable: true, resolve: (e) => e.finish_reason ?? null }),
    cacheReadTokens: t.int({ nullable: true, resolve: (e) => e.cache_read_tokens ?? null }),
    cacheCreationTokens: t.int({ nullable: true, resolve: (e) => e.cache_creation_tokens ?? null }),
    thinkingTokens: t.int({ nullable: true, resolve: (e) => e.thinking_tokens ?? null }),
    lineageProvenance: t.string({ nullable: true, resolve: (e) => e.lineage_provenance ?? null }),
    lineageStatus: t.string({ nullable: true, resolve: (e) => e.lineage_status ?? null }),
    schemaVersion: t.string({ nullable: true, resolve: (e) => e.schema_version ?? null }),
    replayOf: t.string({ nullable: true, resolve: (e) => e.replay_of ?? null }),
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
          e.type === 'span:new' && (!a.sessionId || e.data.session_id === a.sessionId),
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
          e.type === 'health:check' && (!a.serverName || e.data.server_name === a.serverName),
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
