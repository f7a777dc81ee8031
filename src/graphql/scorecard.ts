import { scopeProject } from '../auth/principal.ts';
import type { Cap } from '../scoring/caps.ts';
import type { Dimension } from '../scoring/dimensions.ts';
import type { Scorecard } from '../scoring/scorecard.ts';
import type { ServerKey } from '../store/security-repo.ts';
import { builder, type Context } from './builder.ts';
import { HealthResultRef } from './health.ts';

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
interface Batch {
  keys: Map<string, ServerKey>;
  cards: Promise<Map<string, Scorecard>>;
}
const batches = new WeakMap<Context, Batch>();
const idOf = (k: ServerKey) => `${k.projectId}\u0000${k.serverName}`;

function loadScorecard(ctx: Context, key: ServerKey): Promise<Scorecard | null> {
  let batch = batches.get(ctx);
  if (!batch) {
    const keys = new Map<string, ServerKey>();
    // Sibling fields resolve in the same turn; the batch runs once they have all joined.
    const cards = new Promise<Scorecard[]>((resolve, reject) => {
      setImmediate(() => {
        batches.delete(ctx);
        ctx.services.scoring.forKeys([...keys.values()]).then(resolve, reject);
      });
    });
    batch = { keys, cards: cards.then((list) => new Map(list.map((c) => [idOf(c), c]))) };
    batches.set(ctx, batch);
  }
  batch.keys.set(idOf(key), key);
  return batch.cards.then((m) => m.get(idOf(key)) ?? null);
}

builder.objectField(HealthResultRef, 'scorecard', (t) =>
  t.field({
    type: ScorecardRef,
    nullable: true,
    description: "The server's scorecard (GET /api/health/servers/{name}/scorecard)",
    resolve: (r, _a, ctx) =>
      loadScorecard(ctx, { projectId: r.projectId, serverName: r.serverName }),
  }),
);

builder.queryField('scorecard', (t) =>
  t.field({
    type: ScorecardRef,
    description: "One server's scorecard; not found when the server is unknown",
    args: { name: t.arg.string({ required: true }), projectId: t.arg.string({ required: false }) },
    resolve: (_r, a, ctx) =>
      ctx.services.scoring.get(scopeProject(ctx.principal, a.projectId), a.name),
  }),
);
