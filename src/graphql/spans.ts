import { isoMicros, type Span } from '../model/span.ts';
import { scopeProject } from '../auth/principal.ts';
import { getSpan, spanCursor, querySpans } from '../traces/spans-service.ts';
import { builder, splitNodeKey, toConnection } from './builder.ts';

export const SpanRef = builder.node(builder.objectRef<Span>('Span'), {
  // The global id names the project too: span ids are unique within a project only.
  id: { resolve: (s) => `${s.projectId}:${s.spanId}` },
  loadOne: (id, ctx) => {
    const [projectId, spanId] = splitNodeKey(id);
    return getSpan(ctx.services.store.db, ctx.principal, spanId, projectId);
  },
  description: 'One tool call, agent turn or handoff (spec §2.1)',
  fields: (t) => ({
    spanId: t.exposeString('spanId'),
    traceId: t.exposeString('traceId', { nullable: true }),
    parentSpanId: t.exposeString('parentSpanId', { nullable: true }),
    sessionId: t.exposeString('sessionId', { nullable: true }),
    projectId: t.exposeString('projectId'),
    spanType: t.exposeString('spanType'),
    serverName: t.exposeString('serverName'),
    toolName: t.exposeString('toolName'),
    agentName: t.exposeString('agentName', { nullable: true }),
    status: t.exposeString('status'),
    error: t.exposeString('error', { nullable: true }),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    endedAt: t.expose('endedAt', { type: 'DateTime' }),
    startedAtIso: t.string({
      description:
        'startedAt as ISO 8601 with microseconds when it has any (DateTime holds milliseconds)',
      resolve: (s) => isoMicros(s.startedAt, s.startedAtMicros),
    }),
    endedAtIso: t.string({
      description: 'endedAt as ISO 8601 with microseconds when it has any',
      resolve: (s) => isoMicros(s.endedAt, s.endedAtMicros),
    }),
    latencyMs: t.exposeFloat('latencyMs'),
    inputArgs: t.expose('inputArgs', { type: 'JSON', nullable: true }),
    outputResult: t.exposeString('outputResult', { nullable: true }),
    llmInput: t.exposeString('llmInput', { nullable: true }),
    llmOutput: t.exposeString('llmOutput', { nullable: true }),
    inputTokens: t.exposeInt('inputTokens', { nullable: true }),
    outputTokens: t.exposeInt('outputTokens', { nullable: true }),
    targetAgentName: t.string({ nullable: true, resolve: (s) => s.targetAgentName ?? null }),
    finishReason: t.string({ nullable: true, resolve: (s) => s.finishReason ?? null }),
    cacheReadTokens: t.int({ nullable: true, resolve: (s) => s.cacheReadTokens ?? null }),
    cacheCreationTokens: t.int({ nullable: true, resolve: (s) => s.cacheCreationTokens ?? null }),
    thinkingTokens: t.int({ nullable: true, resolve: (s) => s.thinkingTokens ?? null }),
    lineageProvenance: t.string({ nullable: true, resolve: (s) => s.lineageProvenance ?? null }),
    lineageStatus: t.string({ nullable: true, resolve: (s) => s.lineageStatus ?? null }),
    schemaVersion: t.string({ nullable: true, resolve: (s) => s.schemaVersion ?? null }),
    replayOf: t.string({ nullable: true, resolve: (s) => s.replayOf ?? null }),
    modelId: t.exposeString('modelId', { nullable: true }),
    healthTag: t.exposeString('healthTag', { nullable: true }),
  }),
});

const SpanFilter = builder.inputType('SpanFilter', {
  fields: (t) => ({
    projectId: t.string({ required: false }),
    serverName: t.string({ required: false }),
    toolName: t.string({ required: false }),
    sessionId: t.string({ required: false }),
    traceId: t.string({ required: false }),
    agentName: t.string({ required: false }),
    status: t.string({ required: false }),
    spanType: t.string({ required: false }),
    since: t.field({ type: 'DateTime', required: false }),
    until: t.field({ type: 'DateTime', required: false }),
  }),
});

builder.queryField('spans', (t) =>
  t.connection({
    type: SpanRef,
    description: 'Spans newest first, the same as GET /api/traces/spans',
    args: { filter: t.arg({ type: SpanFilter, required: false }) },
    resolve: async (_root, args, ctx) => {
      const f = args.filter ?? {};
      const page = await querySpans(ctx.services.store.db, {
        projectId: scopeProject(ctx.principal, f.projectId),
        server_name: f.serverName ?? undefined,
        tool_name: f.toolName ?? undefined,
        session_id: f.sessionId ?? undefined,
        trace_id: f.traceId ?? undefined,
        agent_name: f.agentName ?? undefined,
        status: f.status ?? undefined,
        span_type: f.spanType ?? undefined,
        since: f.since?.toISOString(),
        until: f.until?.toISOString(),
        limit: args.first ?? 100,
        cursor: args.after ?? undefined,
      });
      return toConnection(page.spans, spanCursor, page.nextCursor !== null);
    },
  }),
);

builder.queryField('span', (t) =>
  t.field({
    type: SpanRef,
    description:
      'One span with its payloads; projectId defaults to the key\'s project, else "default"',
    args: {
      spanId: t.arg.string({ required: true }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) => getSpan(ctx.services.store.db, ctx.principal, a.spanId, a.projectId),
  }),
);
