import type { HealthTag } from '../model/health-tags.ts';
import type { MinuteCount } from '../model/span.ts';
import { describeRange } from '../model/int-range.ts';
import { PER_MINUTE_MINUTES } from '../traces/spans-service.ts';
import { WINDOW_HOURS_DESCRIPTION, withoutNulls } from './args.ts';
import { builder } from './builder.ts';

/** Aggregates for the dashboard's overview (docs/ui.md#pages), counted by the server. */
const MinuteCountRef = builder.objectRef<MinuteCount>('MinuteCount').implement({
  description: 'Spans that started in one minute',
  fields: (t) => ({
    minute: t.expose('minute', { type: 'DateTime', description: "The minute's start (UTC)" }),
    spans: t.exposeInt('spans'),
    errors: t.exposeInt('errors', { description: 'Spans with status error or timeout' }),
  }),
});

const HealthCountRef = builder
  .objectRef<{ healthTag: HealthTag; sessions: number }>('SessionHealthCount')
  .implement({
    fields: (t) => ({
      healthTag: t.exposeString('healthTag'),
      sessions: t.exposeInt('sessions'),
    }),
  });

builder.queryField('spansPerMinute', (t) =>
  t.field({
    type: [MinuteCountRef],
    description: `Spans and failures per minute over the last \`minutes\` minutes (${describeRange(PER_MINUTE_MINUTES)}), oldest first; the last entry is the current minute, still counting. Every minute is present (0 when quiet).`,
    args: {
      projectId: t.arg.string({ required: false }),
      minutes: t.arg.int({ required: false }),
    },
    resolve: (_r, a, ctx) => ctx.services.spans.perMinute(ctx.principal, withoutNulls(a)),
  }),
);

builder.queryField('sessionHealthCounts', (t) =>
  t.field({
    type: [HealthCountRef],
    description:
      'Sessions active in a window (default the last 24 h) per health tag, most first; tags with no session are absent',
    args: {
      projectId: t.arg.string({ required: false }),
      since: t.arg({ type: 'DateTime', required: false }),
      until: t.arg({ type: 'DateTime', required: false }),
      hours: t.arg.int({
        required: false,
        description: WINDOW_HOURS_DESCRIPTION,
      }),
    },
    resolve: (_r, a, ctx) => ctx.services.sessions.countByHealth(ctx.principal, withoutNulls(a)),
  }),
);
