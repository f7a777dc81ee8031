import { isoMicros, type Span } from '../model/span.ts';
import {
  inputPreview,
  outputPreview,
  PREVIEW_CHARS,
  type PayloadPreview,
} from '../traces/preview.ts';
import { spanCursor } from '../traces/spans-service.ts';
import { withoutNulls } from './args.ts';
import { builder, splitNodeKey, toConnection } from './builder.ts';

const PayloadPreviewRef = builder.objectRef<PayloadPreview>('PayloadPreview').implement({
  description: `The first ${PREVIEW_CHARS} characters of a payload, for list views`,
  fields: (t) => ({
    text: t.exposeString('text', { description: 'JSON text for tool arguments' }),
    truncated: t.exposeBoolean('truncated', {
      description: 'true when the payload is longer; fetch span(spanId) for the whole of it',
    }),
  }),
});

export const SpanRef = builder.node(builder.objectRef<Span>('Span'), {
  // The global id names the project too: span ids are unique within a project only.
  id: { resolve: (s) => `${s.projectId}:${s.spanId}` },
  loadOne: (id, ctx) => {
    const [projectId, spanId] = splitNodeKey(id);
    return ctx.services.spans.get(ctx.principal, spanId, projectId);
  },
  description: 'One tool call, agent turn or handoff (docs/ingest.md#native-spans)',
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
    costUsd: t.exposeFloat('costUsd', {
      nullable: true,
      description:
        'Cost in USD set at ingest, as REST cost_usd (docs/costs.md#how-a-span-is-priced)',
    }),
    targetAgentName: t.string({ nullable: true, resolve: (s) => s.targetAgentName ?? null }),
    finishReason: t.string({ nullable: true, resolve: (s) => s.finishReason ?? null }),
    cacheReadTokens: t.int({ nullable: true, resolve: (s) => s.cacheReadTokens ?? null }),
    cacheCreationTokens: t.int({ nullable: true, resolve: (s) => s.cacheCreationTokens ?? null }),
    thinkingTokens: t.int({ nullable: true, resolve: (s) => s.thinkingTokens ?? null }),
    lineageProvenance: t.string({ nullable: true, resolve: (s) => s.lineageProvenance ?? null }),
    lineageStatus: t.string({ nullable: true, resolve: (s) => s.lineageStatus ?? null }),
    schemaVersion: t.string({ nullable: true, resolve: (s) => s.schemaVersion ?? null }),
    replayOf: t.string({ nullable: true, resolve: (s) => s.replayOf ?? null }),
    inputPreview: t.field({
      type: PayloadPreviewRef,
      nullable: true,
      description: `inputArgs as JSON text (else llmInput) capped at ${PREVIEW_CHARS} characters`,
      resolve: inputPreview,
    }),
    outputPreview: t.field({
      type: PayloadPreviewRef,
      nullable: true,
      description: `outputResult (else llmOutput) capped at ${PREVIEW_CHARS} characters`,
      resolve: outputPreview,
    }),
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
      const page = await ctx.services.spans.query(ctx.principal, {
        ...withoutNulls(args.filter),
        limit: args.first,
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
    resolve: (_r, a, ctx) => ctx.services.spans.get(ctx.principal, a.spanId, a.projectId),
  }),
);
