import type { ServerSession, ToolSnapshot } from '../model/health.ts';
import { builder } from './builder.ts';
import { DriftEventRef, bounded } from './health.ts';

/** A server's tools, a drift's two tool lists and the sessions that called it (the dashboard's server tabs). */

/** MCP lets a server send anything; names and descriptions that are not strings are shown as JSON text. */
const text = (v: unknown): string | null =>
  v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v);

const McpToolRef = builder.objectRef<ToolSnapshot>('McpTool').implement({
  description: 'A tool as the server listed it (the fields its schema hash covers)',
  fields: (t) => ({
    name: t.exposeString('name'),
    title: t.string({ nullable: true, resolve: (x) => text(x.title) }),
    description: t.string({ nullable: true, resolve: (x) => text(x.description) }),
    inputSchema: t.field({ type: 'JSON', nullable: true, resolve: (x) => x.inputSchema ?? null }),
    outputSchema: t.field({ type: 'JSON', nullable: true, resolve: (x) => x.outputSchema ?? null }),
    annotations: t.field({ type: 'JSON', nullable: true, resolve: (x) => x.annotations ?? null }),
  }),
});

const ServerToolsRef = builder
  .objectRef<{ tools: ToolSnapshot[]; schemaHash: string | null; source: string }>('ServerTools')
  .implement({
    fields: (t) => ({
      tools: t.field({ type: [McpToolRef], resolve: (s) => s.tools }),
      schemaHash: t.exposeString('schemaHash', { nullable: true }),
      source: t.exposeString('source', {
        description:
          'check: the latest health check listed them; agent: an agent posted them; none',
      }),
    }),
  });

builder.queryField('serverTools', (t) =>
  t.field({
    type: ServerToolsRef,
    description:
      "The server's newest tool list: its latest check's, else the newest an agent posted",
    args: { name: t.arg.string({ required: true }), projectId: t.arg.string({ required: false }) },
    resolve: (_r, a, ctx) => ctx.services.serverTools.tools(ctx.principal, a.name, a.projectId),
  }),
);

builder.objectFields(DriftEventRef, (t) => ({
  previousTools: t.field({
    type: [McpToolRef],
    nullable: true,
    description: 'The tool list before the change; null once retention removed it',
    resolve: (e, _a, ctx) => ctx.services.serverTools.driftTools(ctx.principal, e, 'previous'),
  }),
  currentTools: t.field({
    type: [McpToolRef],
    nullable: true,
    description: 'The tool list after the change; null once retention removed it',
    resolve: (e, _a, ctx) => ctx.services.serverTools.driftTools(ctx.principal, e, 'current'),
  }),
}));

const ServerSessionRef = builder.objectRef<ServerSession>('ServerSession').implement({
  description: 'A session that called the server in the window',
  fields: (t) => ({
    sessionId: t.exposeString('sessionId'),
    agentName: t.exposeString('agentName', { nullable: true }),
    callCount: t.exposeInt('callCount'),
    errorCount: t.exposeInt('errorCount'),
    lastCalledAt: t.expose('lastCalledAt', { type: 'DateTime' }),
  }),
});

builder.queryField('serverSessions', (t) =>
  t.field({
    type: [ServerSessionRef],
    description:
      'Sessions that called the server (or toolName of it) in the last hours, newest call first: who an outage or a drift reaches',
    args: {
      name: t.arg.string({ required: true }),
      toolName: t.arg.string({ required: false }),
      hours: t.arg.int({ required: false }),
      limit: t.arg.int({ required: false }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.serverTools.sessions(ctx.principal, {
        name: a.name,
        toolName: a.toolName,
        hours: bounded('hours', a.hours, 24, 1, 720),
        limit: bounded('limit', a.limit, 20, 1, 100),
        projectId: a.projectId,
      }),
  }),
);
