import { scopeProject } from '../auth/principal.ts';
import {
  getLineage,
  type Lineage,
  type LineageEdge,
  type LineageNode,
} from '../sessions/lineage-service.ts';
import {
  getSession,
  getSessionTree,
  listSessions,
  sessionCursor,
  type SessionJson,
  type TreeNode,
} from '../sessions/sessions-service.ts';
import { builder, splitNodeKey, toConnection } from './builder.ts';
import { SpanRef } from './spans.ts';

interface FlatNode {
  span: TreeNode;
  depth: number;
}
interface SessionDetail {
  session: SessionJson;
  nodes: FlatNode[];
  truncated: boolean;
}

const SessionRef = builder.node(builder.objectRef<SessionJson>('Session'), {
  // The global id names the project too: session ids are unique within a project only.
  id: { resolve: (s) => `${s.project_id}:${s.session_id}` },
  loadOne: (id, ctx) => {
    const [projectId, sessionId] = splitNodeKey(id);
    return getSession(ctx.services.store.db, scopeProject(ctx.principal, projectId), sessionId);
  },
  description: 'A session rollup (spec §2.8, decisions §4)',
  fields: (t) => ({
    sessionId: t.exposeString('session_id'),
    projectId: t.exposeString('project_id'),
    agentName: t.exposeString('agent_name', { nullable: true }),
    firstCallAt: t.field({ type: 'DateTime', resolve: (s) => new Date(s.first_call_at) }),
    lastCallAt: t.field({ type: 'DateTime', resolve: (s) => new Date(s.last_call_at) }),
    durationMs: t.exposeInt('duration_ms'),
    toolCalls: t.exposeInt('tool_calls'),
    failedCalls: t.exposeInt('failed_calls'),
    preventedCalls: t.exposeInt('prevented_calls', {
      description: 'Tool calls a guard blocked (loop, budget, open circuit breaker)',
    }),
    spanCount: t.exposeInt('span_count'),
    serversUsed: t.exposeStringList('servers_used'),
    healthTag: t.exposeString('health_tag'),
    inputTokens: t.exposeInt('input_tokens'),
    outputTokens: t.exposeInt('output_tokens'),
    estCostUsd: t.exposeFloat('est_cost_usd'),
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

builder.queryField('sessions', (t) =>
  t.connection({
    type: SessionRef,
    args: {
      projectId: t.arg.string({ required: false }),
      agentName: t.arg.string({ required: false }),
      healthTag: t.arg.string({ required: false }),
      since: t.arg({ type: 'DateTime', required: false }),
      until: t.arg({ type: 'DateTime', required: false }),
      hours: t.arg.int({
        required: false,
        description: 'Look back this many hours (1-720) when since is not given; default 24',
      }),
    },
    resolve: async (_r, a, ctx) => {
      const page = await listSessions(ctx.services.store.db, {
        projectId: scopeProject(ctx.principal, a.projectId),
        agent_name: a.agentName ?? undefined,
        health_tag: a.healthTag ?? undefined,
        since: a.since?.toISOString(),
        until: a.until?.toISOString(),
        hours: a.hours ?? undefined,
        limit: a.first ?? 50,
        cursor: a.after ?? undefined,
      });
      return toConnection(page.sessions, sessionCursor, page.nextCursor !== null);
    },
  }),
);

builder.queryField('session', (t) =>
  t.field({
    type: SessionDetailRef,
    args: {
      sessionId: t.arg.string({ required: true }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: async (_r, a, ctx) => {
      const detail = await getSessionTree(
        ctx.services.store.db,
        scopeProject(ctx.principal, a.projectId),
        a.sessionId,
      );
      const nodes: FlatNode[] = [];
      const walk = (list: TreeNode[], depth: number) => {
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
    avgLatencyMs: t.exposeFloat('avg_latency_ms'),
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
        description: 'Look back this many hours (1-720) when since is not given; default 24',
      }),
    },
    resolve: (_r, a, ctx) =>
      getLineage(ctx.services.store.db, {
        projectId: scopeProject(ctx.principal, a.projectId),
        since: a.since?.toISOString(),
        until: a.until?.toISOString(),
        hours: a.hours ?? undefined,
      }),
  }),
);
