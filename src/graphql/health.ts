import { SpyglassError } from '../errors.ts';
import { BLAST_RADIUS_HOURS, DRIFT_IMPACT_HOURS, HISTORY_LIMIT } from '../health/health-service.ts';
import { keysetCursor } from '../health/page-cursor.ts';
import { describeRange } from '../model/int-range.ts';
import { toolSnapshots } from '../http/tool-list.ts';
import type {
  AffectedAgent,
  BlastRadius,
  DriftChange,
  DriftEvent,
  DriftImpact,
  HealthResult,
  ImpactConsumer,
  ToolObservation,
} from '../model/health.ts';
import { builder, toConnection } from './builder.ts';

/** MCP health (docs/health.md): the same service and limits as /api/health. */

export const HealthResultRef = builder.objectRef<HealthResult>('HealthResult').implement({
  description: 'A health check result; status stale/unknown is derived when read',
  fields: (t) => ({
    serverName: t.exposeString('serverName'),
    projectId: t.exposeString('projectId'),
    status: t.exposeString('status', { description: 'up, degraded, down, stale or unknown' }),
    latencyMs: t.exposeFloat('latencyMs', { nullable: true }),
    toolsCount: t.exposeInt('toolsCount', { nullable: true }),
    schemaHash: t.exposeString('schemaHash', { nullable: true }),
    error: t.exposeString('error', { nullable: true }),
    checkedAt: t.expose('checkedAt', { type: 'DateTime', nullable: true }),
    schemaDrift: t.exposeBoolean('schemaDrift'),
    transport: t.exposeString('transport', { nullable: true }),
    serverInfo: t.expose('serverInfo', { type: 'JSON', nullable: true }),
    protocolVersion: t.exposeString('protocolVersion', { nullable: true }),
  }),
});

const DriftChangeRef = builder.objectRef<DriftChange>('DriftChange').implement({
  fields: (t) => ({
    changeType: t.string({ resolve: (c) => c.change_type }),
    classification: t.string({
      resolve: (c) => c.classification,
      description: 'BREAKING, WARNING or COMPATIBLE',
    }),
    toolName: t.string({ nullable: true, resolve: (c) => c.tool_name }),
    paramName: t.string({
      nullable: true,
      resolve: (c) => c.param_name,
      description: 'dotted path for nested parameters',
    }),
    paramType: t.string({ nullable: true, resolve: (c) => c.param_type }),
    detail: t.string({ nullable: true, resolve: (c) => c.detail }),
  }),
});

export const DriftEventRef = builder.objectRef<DriftEvent>('DriftEvent').implement({
  fields: (t) => ({
    id: t.exposeString('id'),
    serverName: t.exposeString('serverName'),
    projectId: t.exposeString('projectId'),
    detectedAt: t.expose('detectedAt', { type: 'DateTime' }),
    previousHash: t.exposeString('previousHash'),
    currentHash: t.exposeString('currentHash'),
    classification: t.exposeString('classification'),
    changes: t.field({ type: [DriftChangeRef], resolve: (e) => e.changes }),
    observedBy: t.string({
      description: 'check: a Spyglass health check found it; agent: a tool list an agent posted',
      resolve: (e) => e.observedBy ?? 'check',
    }),
    agentName: t.string({
      nullable: true,
      description: 'the agent whose posted tool list showed the drift',
      resolve: (e) => e.agentName ?? null,
    }),
  }),
});

const ConsumerRef = builder.objectRef<ImpactConsumer>('DriftImpactConsumer').implement({
  fields: (t) => ({
    agentName: t.exposeString('agentName', { nullable: true }),
    sessionCount: t.exposeInt('sessionCount'),
    lastCalledAt: t.expose('lastCalledAt', { type: 'DateTime' }),
  }),
});

const DriftImpactRef = builder.objectRef<DriftImpact>('DriftImpact').implement({
  fields: (t) => ({
    serverName: t.exposeString('serverName'),
    toolName: t.exposeString('toolName'),
    windowHours: t.exposeInt('windowHours'),
    consumers: t.field({ type: [ConsumerRef], resolve: (d) => d.consumers }),
    totalSessions: t.exposeInt('totalSessions'),
  }),
});

const AffectedAgentRef = builder.objectRef<AffectedAgent>('AffectedAgent').implement({
  fields: (t) => ({
    agentName: t.exposeString('agentName', { nullable: true }),
    callCount: t.exposeInt('callCount'),
    sessionCount: t.exposeInt('sessionCount'),
    errorCount: t.exposeInt('errorCount'),
    errorRate: t.exposeFloat('errorRate', { description: 'percent' }),
    avgLatencyMs: t.exposeFloat('avgLatencyMs'),
    lastCalledAt: t.expose('lastCalledAt', { type: 'DateTime' }),
  }),
});

const BlastRadiusRef = builder.objectRef<BlastRadius>('BlastRadius').implement({
  fields: (t) => ({
    serverName: t.exposeString('serverName'),
    serverStatus: t.exposeString('serverStatus'),
    windowHours: t.exposeInt('windowHours'),
    severity: t.exposeString('severity', { description: 'CRITICAL, HIGH, MEDIUM or LOW' }),
    totalAgents: t.exposeInt('totalAgents'),
    totalSessions: t.exposeInt('totalSessions'),
    totalCalls: t.exposeInt('totalCalls'),
    affectedAgents: t.field({ type: [AffectedAgentRef], resolve: (b) => b.affectedAgents }),
  }),
});

builder.queryField('healthServers', (t) =>
  t.field({
    type: [HealthResultRef],
    description: 'Latest result per configured server (GET /api/health/servers)',
    args: { projectId: t.arg.string({ required: false }) },
    resolve: (_r, a, ctx) => ctx.services.health.listLatest(ctx.principal, a.projectId),
  }),
);

builder.queryField('healthServer', (t) =>
  t.field({
    type: HealthResultRef,
    nullable: true,
    description: 'Latest result of one server; null when it was never checked',
    args: { name: t.arg.string({ required: true }), projectId: t.arg.string({ required: false }) },
    resolve: async (_r, a, ctx) => {
      try {
        return await ctx.services.health.latest(ctx.principal, a.name, a.projectId);
      } catch (err) {
        if (err instanceof SpyglassError && err.code === 'not_found') return null;
        throw err;
      }
    },
  }),
);

builder.queryField('healthHistory', (t) =>
  t.field({
    type: [HealthResultRef],
    description: 'The newest results of one server (healthHistoryConnection pages through all)',
    args: {
      name: t.arg.string({ required: true }),
      limit: t.arg.int({ required: false, description: describeRange(HISTORY_LIMIT) }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: async (_r, a, ctx) =>
      (
        await ctx.services.health.history(ctx.principal, a.name, {
          projectId: a.projectId,
          limit: a.limit,
        })
      ).items,
  }),
);

builder.queryField('healthHistoryConnection', (t) =>
  t.connection({
    type: HealthResultRef,
    description: "One server's results, newest first (GET /api/health/servers/{name}/history)",
    args: { name: t.arg.string({ required: true }), projectId: t.arg.string({ required: false }) },
    resolve: async (_r, a, ctx) => {
      const page = await ctx.services.health.history(ctx.principal, a.name, {
        projectId: a.projectId,
        limit: a.first,
        after: a.after,
      });
      return toConnection(page.items, (r) => keysetCursor(r.checkedAt, r.id), !!page.nextCursor);
    },
  }),
);

builder.queryField('driftHistory', (t) =>
  t.field({
    type: [DriftEventRef],
    description: 'The newest drift events of one server (driftHistoryConnection pages through all)',
    args: {
      name: t.arg.string({ required: true }),
      limit: t.arg.int({ required: false, description: describeRange(HISTORY_LIMIT) }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: async (_r, a, ctx) =>
      (
        await ctx.services.health.driftHistory(ctx.principal, a.name, {
          projectId: a.projectId,
          limit: a.limit,
        })
      ).items,
  }),
);

builder.queryField('driftHistoryConnection', (t) =>
  t.connection({
    type: DriftEventRef,
    description:
      "One server's drift events, newest first (GET /api/health/servers/{name}/drift-history)",
    args: { name: t.arg.string({ required: true }), projectId: t.arg.string({ required: false }) },
    resolve: async (_r, a, ctx) => {
      const page = await ctx.services.health.driftHistory(ctx.principal, a.name, {
        projectId: a.projectId,
        limit: a.first,
        after: a.after,
      });
      return toConnection(page.items, (e) => keysetCursor(e.detectedAt, e.id), !!page.nextCursor);
    },
  }),
);

builder.queryField('driftImpact', (t) =>
  t.field({
    type: DriftImpactRef,
    args: {
      name: t.arg.string({ required: true }),
      toolName: t.arg.string({ required: true }),
      hours: t.arg.int({ required: false, description: describeRange(DRIFT_IMPACT_HOURS) }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.health.driftImpact(ctx.principal, {
        name: a.name,
        toolName: a.toolName,
        hours: a.hours,
        projectId: a.projectId,
      }),
  }),
);

builder.queryField('blastRadius', (t) =>
  t.field({
    type: BlastRadiusRef,
    args: {
      name: t.arg.string({ required: true }),
      hours: t.arg.int({ required: false, description: describeRange(BLAST_RADIUS_HOURS) }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.health.blastRadius(ctx.principal, {
        name: a.name,
        hours: a.hours,
        projectId: a.projectId,
      }),
  }),
);

builder.mutationField('runHealthChecks', (t) =>
  t.field({
    type: [HealthResultRef],
    description: 'Checks configured servers now (POST /api/health/check); admin only',
    args: {
      serverName: t.arg.string({ required: false }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: async (_r, a, ctx) =>
      (await ctx.services.health.runChecks(ctx.principal, a)).map((r) => r.result),
  }),
);

const ToolObservationRef = builder.objectRef<ToolObservation>('ToolObservation').implement({
  description:
    'A tool list an agent saw, stored as an observed schema of the server (POST /api/servers/{name}/tools)',
  fields: (t) => ({
    serverName: t.exposeString('serverName'),
    projectId: t.exposeString('projectId'),
    agentName: t.exposeString('agentName', { nullable: true }),
    toolsCount: t.exposeInt('toolsCount'),
    schemaHash: t.exposeString('schemaHash'),
    observedAt: t.expose('observedAt', { type: 'DateTime' }),
    drift: t.field({
      type: DriftEventRef,
      nullable: true,
      description: 'The change from the previous list an agent posted; null for none',
      resolve: (o) => o.drift,
    }),
  }),
});

builder.mutationField('recordObservedTools', (t) =>
  t.field({
    type: ToolObservationRef,
    description:
      "Stores the tools an agent saw as the server's observed schema; drift from the previous list is classified and alerted like a check's",
    args: {
      serverName: t.arg.string({ required: true }),
      tools: t.arg({
        type: ['JSON'],
        required: true,
        description: 'MCP tool objects ({name, description, inputSchema})',
      }),
      agentName: t.arg.string({ required: false }),
      projectId: t.arg.string({ required: false }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.observedTools.record(ctx.principal, a.serverName, {
        tools: toolSnapshots(a.tools, ['tools']),
        agentName: a.agentName,
        projectId: a.projectId,
      }),
  }),
);
