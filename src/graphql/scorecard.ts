import type { Cap, Dimension, Scorecard } from '../model/scorecard.ts';
import type { ServerKey } from '../model/security-scan.ts';
import { builder } from './builder.ts';
import { CatalogEntryRef } from './catalog.ts';
import { HealthResultRef } from './health.ts';
import { loaderFor, loaderKind } from './loaders.ts';

/** Scorecards (docs/scorecards.md): a field of every server's health result, batched per request, and a lookup. */

const DimensionRef = builder.objectRef<Dimension>('ScorecardDimension').implement({
  fields: (t) => ({
    name: t.exposeString('name', {
      description: 'availability, security, reliability, schema_stability or performance',
    }),
    weight: t.exposeFloat('weight'),
    rawScore: t.exposeFloat('rawScore'),
    weightedScore: t.exposeFloat('weightedScore'),
    notes: t.exposeString('notes', { nullable: true }),
  }),
});

const CapRef = builder.objectRef<Cap>('ScorecardCap').implement({
  fields: (t) => ({
    reason: t.exposeString('reason'),
    maxGrade: t.exposeString('maxGrade'),
    description: t.exposeString('description'),
  }),
});

const ScorecardRef = builder.objectRef<Scorecard>('Scorecard').implement({
  description: 'Weighted grade of a server (A+ to F) with the hard cap that limited it',
  fields: (t) => ({
    serverName: t.exposeString('serverName'),
    projectId: t.exposeString('projectId'),
    grade: t.exposeString('grade', { description: 'A+, A, B, C, D or F' }),
    score: t.exposeFloat('score', { description: '0 to 100' }),
    dimensions: t.field({ type: [DimensionRef], resolve: (s) => s.dimensions }),
    capApplied: t.field({ type: CapRef, nullable: true, resolve: (s) => s.capApplied }),
    computedAt: t.expose('computedAt', { type: 'DateTime' }),
  }),
});

/** One aggregate query for all the servers a response lists, instead of one per server. */
const scorecards = loaderKind<ServerKey, Scorecard>({
  batch: (ctx, keys) => ctx.services.scoring.forKeys(ctx.principal, keys),
  keyOf: (k) => `${k.projectId}\u0000${k.serverName}`,
});

builder.objectField(HealthResultRef, 'scorecard', (t) =>
  t.field({
    type: ScorecardRef,
    nullable: true,
    description: "The server's scorecard (GET /api/health/servers/{name}/scorecard)",
    resolve: (r, _a, ctx) =>
      loaderFor(ctx, scorecards).load({ projectId: r.projectId, serverName: r.serverName }),
  }),
);

builder.objectField(CatalogEntryRef, 'scorecard', (t) =>
  t.field({
    type: ScorecardRef,
    nullable: true,
    description:
      "A server entry's scorecard, observed-only servers included (batched like HealthResult.scorecard); null for agents",
    resolve: (e, _a, ctx) =>
      e.kind === 'server'
        ? loaderFor(ctx, scorecards).load({ projectId: e.projectId, serverName: e.name })
        : null,
  }),
);

builder.queryField('scorecard', (t) =>
  t.field({
    type: ScorecardRef,
    description: "One server's scorecard; not found when the server is unknown",
    args: { name: t.arg.string({ required: true }), projectId: t.arg.string({ required: false }) },
    resolve: (_r, a, ctx) => ctx.services.scoring.get(ctx.principal, a.name, a.projectId),
  }),
);
