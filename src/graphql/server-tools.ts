import type { ServerSession, ToolSnapshot } from '../model/health.ts';
import { builder } from './builder.ts';
import { SERVER_SESSIONS_HOURS, SERVER_SESSIONS_LIMIT } from '../health/server-tools.ts';
import { describeRange } from '../model/int-range.ts';
import { DriftEventRef } from './health.ts';
import { loaderFor, loaderKind } from './loaders.ts';
import type { Context } from './builder.ts';
import type { DriftEvent } from '../model/health.ts';

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

/** Every drift event's two tool lists in a request come from one read (by schema hash). */
const SNAPSHOTS = loaderKind<string, { hash: string; tools: ToolSnapshot[] }>({
  batch: (ctx, hashes) => ctx.services.serverTools.snapshots(ctx.principal, hashes),
  keyOf: (k) => (typeof k === 'string' ? k : k.hash),
});

async function driftTools(e: DriftEvent, ctx: Context, side: 'previous' | 'current') {
  ctx.services.serverTools.checkDriftRead(ctx.principal, e);
  const hash = side === 'previous' ? e.previousHash : e.currentHash;
  return (await loaderFor(ctx, SNAPSHOTS).load(hash))?.tools ?? null;
}

builder.objectFields(DriftEventRef, (t) => ({
  previousTools: t.field({
    type: [McpToolRef],
    nullable: true,
    description: 'The tool list before the change; null once retention removed it',
    resolve: (e, _a, ctx) => driftTools(e, ctx, 'previous'),
  }),
  currentTools: t.field({
    type: [McpToolRef],
    nullable: true,
    description: 'The tool list after the change; null once retention removed it',
    resolve: (e, _a, ctx) => driftTools(e, ctx, 'current'),
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
      hours: t.arg.int({ required: false, description: describeRange(SERVER_SESSIONS_HOURS) }),
      limit: t.arg.int({ required: false, description: describeRange(SERVER_SESSIONS_LIMIT) }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.serverTools.sessions(ctx.principal, {
        name: a.name,
        toolName: a.toolName,
        hours: a.hours,
        limit: a.limit,
        projectId: a.projectId,
      }),
  }),
);
