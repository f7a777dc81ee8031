import type {
  Lineage,
  LineageEdge,
  LineageNode,
  Session,
  SessionTreeNode,
} from '../model/session.ts';
import { SESSION_ORDERS, sessionCursor } from '../sessions/sessions-service.ts';

import { WINDOW_HOURS_DESCRIPTION, withoutNulls } from './args.ts';
import { builder, splitNodeKey, toConnection } from './builder.ts';
import { SpanRef } from './spans.ts';

interface FlatNode {
  span: SessionTreeNode;
  depth: number;
}
interface SessionDetail {
  session: Session;
  nodes: FlatNode[];
  truncated: boolean;
}

const SessionRef = builder.node(builder.objectRef<Session>('Session'), {
  // The global id names the project too: session ids are unique within a project only.
  id: { resolve: (s) => `${s.projectId}:${s.sessionId}` },
  loadOne: (id, ctx) => {
    const [projectId, sessionId] = splitNodeKey(id);
    return ctx.services.sessions.get(ctx.principal, sessionId, projectId);
  },
  description: 'A session rollup (docs/api.md#shapes)',
  fields: (t) => ({
    sessionId: t.exposeString('sessionId'),
    projectId: t.exposeString('projectId'),
    agentName: t.exposeString('agentName', { nullable: true }),
    firstCallAt: t.expose('firstCallAt', { type: 'DateTime' }),
    lastCallAt: t.expose('lastCallAt', { type: 'DateTime' }),
    durationMs: t.exposeInt('durationMs'),
    toolCalls: t.exposeInt('toolCalls'),
    failedCalls: t.exposeInt('failedCalls'),
    preventedCalls: t.exposeInt('preventedCalls', {
      description: 'Tool calls a guard blocked (loop, budget, open circuit breaker)',
    }),
    spanCount: t.exposeInt('spanCount'),
    serversUsed: t.exposeStringList('serversUsed'),
    healthTag: t.exposeString('healthTag'),
    inputTokens: t.exposeInt('inputTokens'),
    outputTokens: t.exposeInt('outputTokens'),
    estCostUsd: t.exposeFloat('estCostUsd'),
  }),
});

const TreeNodeRef = builder.objectRef<FlatNode>('SessionTreeNode').implement({
  description:
    'A span in depth-first order; depth 0 is a root. Rebuild the tree with span.parentSpanId.',
  fields: (t) => ({
    depth: t.exposeInt('depth'),
    span: t.field({ type: SpanRef, resolve: (n) => n.span.span }),
  }),
});

const SessionDetailRef = builder.objectRef<SessionDetail>('SessionDetail').implement({
  fields: (t) => ({
    session: t.field({ type: SessionRef, resolve: (d) => d.session }),
    tree: t.field({ type: [TreeNodeRef], resolve: (d) => d.nodes }),
    truncated: t.exposeBoolean('truncated'),
  }),
});

const SessionOrderRef = builder.enumType('SessionOrder', {
  description: 'A column to order sessions by (default: most recent activity first)',
  values: SESSION_ORDERS,
});

builder.queryField('sessions', (t) =>
  t.connection(
    {
      type: SessionRef,
      args: {
        text: t.arg.string({
          required: false,
          description: 'Part of the session id or agent name, case-insensitive',
        }),
        orderBy: t.arg({ type: SessionOrderRef, required: false }),
        descending: t.arg.boolean({
          required: false,
          description: 'With orderBy: largest first (default true)',
        }),
        projectId: t.arg.string({ required: false }),
        agentName: t.arg.string({ required: false }),
        healthTag: t.arg.string({ required: false }),
        since: t.arg({ type: 'DateTime', required: false }),
        until: t.arg({ type: 'DateTime', required: false }),
        hours: t.arg.int({
          required: false,
          description: WINDOW_HOURS_DESCRIPTION,
        }),
      },
      resolve: async (_r, a, ctx) => {
        const { first, after, ...filter } = withoutNulls(a);
        const page = await ctx.services.sessions.list(ctx.principal, {
          ...filter,
          limit: first,
          cursor: after,
        });
        const conn = toConnection(page.sessions, sessionCursor, page.nextCursor !== null);
        // The ordered list pages by offset: its cursor is the service's, not the session's key.
        if (page.nextCursor !== null) conn.pageInfo.endCursor = page.nextCursor;
        // Counted only when asked for.
        return { ...conn, totalCount: () => ctx.services.sessions.count(ctx.principal, filter) };
      },
    },
    {
      fields: (c) => ({
        totalCount: c.int({
          description: 'Sessions matching the filters (all pages)',
          resolve: (conn) =>
            (conn as unknown as { totalCount: () => Promise<number> }).totalCount(),
        }),
      }),
    },
  ),
);

builder.queryField('session', (t) =>
  t.field({
    type: SessionDetailRef,
    args: {
      sessionId: t.arg.string({ required: true }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: async (_r, a, ctx) => {
      const detail = await ctx.services.sessions.tree(ctx.principal, a.sessionId, a.projectId);
      const nodes: FlatNode[] = [];
      const walk = (list: SessionTreeNode[], depth: number) => {
        for (const n of list) {
          nodes.push({ span: n, depth });
          walk(n.children, depth + 1);
        }
      };
      walk(detail.spans, 0);
      return { session: detail.session, nodes, truncated: detail.truncated };
    },
  }),
);

const LineageNodeRef = builder.objectRef<LineageNode>('LineageNode').implement({
  fields: (t) => ({
    id: t.exposeString('id'),
    type: t.exposeString('type'),
    name: t.exposeString('name'),
    calls: t.exposeInt('calls'),
    errors: t.exposeInt('errors'),
  }),
});
const LineageEdgeRef = builder.objectRef<LineageEdge>('LineageEdge').implement({
  fields: (t) => ({
    source: t.exposeString('source'),
    target: t.exposeString('target'),
    type: t.exposeString('type'),
    calls: t.exposeInt('calls'),
    errors: t.exposeInt('errors'),
    avgLatencyMs: t.exposeFloat('avgLatencyMs'),
  }),
});
const LineageRef = builder.objectRef<Lineage>('Lineage').implement({
  fields: (t) => ({
    nodes: t.field({ type: [LineageNodeRef], resolve: (l) => l.nodes }),
    edges: t.field({ type: [LineageEdgeRef], resolve: (l) => l.edges }),
  }),
});

builder.queryField('lineage', (t) =>
  t.field({
    type: LineageRef,
    args: {
      projectId: t.arg.string({ required: false }),
      since: t.arg({ type: 'DateTime', required: false }),
      until: t.arg({ type: 'DateTime', required: false }),
      hours: t.arg.int({
        required: false,
        description: WINDOW_HOURS_DESCRIPTION,
      }),
    },
    resolve: (_r, a, ctx) => ctx.services.sessions.lineage(ctx.principal, withoutNulls(a)),
  }),
);
