import { parseAnomalyFilter } from '../anomalies/filter.ts';
import { describeRange } from '../model/int-range.ts';
import { resolveArrayConnection } from '@pothos/plugin-relay';
import { SERIES_HOURS_RANGE, type AnomalyPoint, type AnomalyRecord } from '../model/anomaly.ts';
import { builder, type Context } from './builder.ts';

/** Anomalies (docs/anomalies.md): the same stored evaluations, roles and scoping as GET /api/reliability/anomalies. */

const AnomalyRef = builder.objectRef<AnomalyRecord>('Anomaly').implement({
  description:
    'A tool whose hourly error rate or mean latency is unusual against its 7-day baseline (docs/anomalies.md)',
  fields: (t) => ({
    projectId: t.exposeString('projectId'),
    serverName: t.exposeString('serverName'),
    toolName: t.exposeString('toolName'),
    metric: t.exposeString('metric', { description: 'error_rate or latency_ms' }),
    zScore: t.exposeFloat('zScore', {
      description: '(current − baseline mean) / max(baseline stddev, floor); positive is worse',
    }),
    currentValue: t.exposeFloat('currentValue'),
    baselineValue: t.exposeFloat('baselineValue', { description: 'the baseline mean' }),
    baselineStddev: t.exposeFloat('baselineStddev', {
      description: 'sample standard deviation of the baseline hours',
    }),
    sampleCount: t.exposeInt('sampleCount', { description: 'baseline hours with calls' }),
    sampleHour: t.expose('sampleHour', {
      type: 'DateTime',
      description: 'the hour the current value comes from',
    }),
    severity: t.string({
      resolve: (a) => a.severity ?? 'none',
      description: 'critical (|z| ≥ 3) or warning (|z| ≥ 2)',
    }),
    detectedAt: t.expose('detectedAt', {
      type: 'DateTime',
      description: 'the evaluation that produced this record',
    }),
    since: t.expose('since', {
      type: 'DateTime',
      nullable: true,
      description: 'when this anomalous run began',
    }),
  }),
});

interface AnomalyArgs {
  serverName?: string | null;
  severity?: string | null;
  metric?: string | null;
  projectId?: string | null;
}

const anomalyArgs = {
  serverName: { required: false },
  severity: { required: false, description: 'critical or warning' },
  metric: { required: false, description: 'error_rate or latency_ms' },
  projectId: { required: false },
} as const;

function list(ctx: Context, a: AnomalyArgs): Promise<AnomalyRecord[]> {
  const filter = parseAnomalyFilter(a, 'args', {
    serverName: 'serverName',
    severity: 'severity',
    metric: 'metric',
  });
  return ctx.services.anomalies.list(ctx.principal, { ...filter, projectId: a.projectId });
}

builder.queryField('anomalies', (t) =>
  t.field({
    type: [AnomalyRef],
    description: 'Tools currently anomalous (GET /api/reliability/anomalies), most severe first',
    args: {
      serverName: t.arg.string(anomalyArgs.serverName),
      severity: t.arg.string(anomalyArgs.severity),
      metric: t.arg.string(anomalyArgs.metric),
      projectId: t.arg.string(anomalyArgs.projectId),
    },
    resolve: (_r, a, ctx) => list(ctx, a),
  }),
);

builder.queryField('anomaliesConnection', (t) =>
  t.connection({
    type: AnomalyRef,
    description: 'Tools currently anomalous, most severe first, in pages',
    args: {
      serverName: t.arg.string(anomalyArgs.serverName),
      severity: t.arg.string(anomalyArgs.severity),
      metric: t.arg.string(anomalyArgs.metric),
      projectId: t.arg.string(anomalyArgs.projectId),
    },
    resolve: async (_r, a, ctx) => resolveArrayConnection({ args: a }, await list(ctx, a)),
  }),
);

const AnomalyPointRef = builder.objectRef<AnomalyPoint>('AnomalyPoint').implement({
  description: "One clock hour of a tool's metric (hours without calls are left out)",
  fields: (t) => ({
    hour: t.expose('hour', { type: 'DateTime' }),
    calls: t.exposeInt('calls'),
    value: t.exposeFloat('value', {
      description: 'error_rate: errors ÷ calls; latency_ms: mean latency in ms',
    }),
  }),
});

builder.queryField('anomalySeries', (t) =>
  t.field({
    type: [AnomalyPointRef],
    description:
      "A tool's hourly error rate or mean latency over the last `hours` clock hours up to the current one, oldest first: the series an anomaly is scored on (docs/anomalies.md#series)",
    args: {
      serverName: t.arg.string({ required: true }),
      toolName: t.arg.string({ required: true }),
      metric: t.arg.string({ required: true, description: 'error_rate or latency_ms' }),
      hours: t.arg.int({
        required: false,
        description: `${describeRange(SERIES_HOURS_RANGE)} (7 days + 2 h)`,
      }),
      projectId: t.arg.string(anomalyArgs.projectId),
    },
    resolve: (_r, a, ctx) => ctx.services.anomalies.series(ctx.principal, a),
  }),
);
