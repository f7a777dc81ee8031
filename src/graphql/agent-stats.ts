import type { AgentSessionStats } from '../model/session.ts';
import { WINDOW_HOURS_DESCRIPTION, withoutNulls } from './args.ts';
import { builder } from './builder.ts';

/** Per-agent sums of the session rollups, for the dashboard's agent pages (docs/ui.md#agents). */
const AgentSessionStatsRef = builder.objectRef<AgentSessionStats>('AgentSessionStats').implement({
  description: "One agent's sessions active in a window, summed from the session rollups",
  fields: (t) => ({
    agentName: t.exposeString('agentName'),
    sessions: t.exposeInt('sessions'),
    toolCalls: t.exposeInt('toolCalls'),
    failedCalls: t.exposeInt('failedCalls'),
    preventedCalls: t.exposeInt('preventedCalls', {
      description: 'Tool calls a guard blocked (loop, budget, open circuit breaker)',
    }),
    estCostUsd: t.exposeFloat('estCostUsd'),
    lastCallAt: t.expose('lastCallAt', { type: 'DateTime' }),
  }),
});

builder.queryField('agentSessionStats', (t) =>
  t.field({
    type: [AgentSessionStatsRef],
    description:
      'Sessions active in a window (default the last 24 h) summed per agent, most sessions first (at most 1000 agents); sessions without an agent name are left out',
    args: {
      projectId: t.arg.string({ required: false }),
      agentName: t.arg.string({ required: false, description: 'Only this agent' }),
      since: t.arg({ type: 'DateTime', required: false }),
      until: t.arg({ type: 'DateTime', required: false }),
      hours: t.arg.int({
        required: false,
        description: WINDOW_HOURS_DESCRIPTION,
      }),
    },
    resolve: (_r, a, ctx) => ctx.services.sessions.byAgent(ctx.principal, withoutNulls(a)),
  }),
);
