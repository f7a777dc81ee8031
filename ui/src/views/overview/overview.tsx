import { useEffect, useMemo, useState } from 'preact/hooks';
import { useQuery, useSubscription } from '../../graphql/hooks.ts';
import { href, param } from '../../router.ts';
import { ErrorState, FirstSpan, Loading } from '../../shell/states.tsx';
import { bumpMinute } from './minutes.ts';
import {
  OVERVIEW,
  OVERVIEW_SPAN_NEW,
  SPANS_PER_MINUTE,
  type MinuteCount,
  type OverviewData,
} from './queries.ts';
import { Sparkline } from './sparkline.tsx';

const MINUTES = 30;

function countBy<T>(items: T[], key: (t: T) => string): [string, number][] {
  const m = new Map<string, number>();
  for (const i of items) m.set(key(i), (m.get(key(i)) ?? 0) + 1);
  return [...m.entries()].sort((a, b) => b[1] - a[1]);
}

/**
 * Spans and failures per minute, counted by the server (polled once a minute) and bumped live by
 * `spanNew` in between, so the sparklines move without re-querying the overview.
 */
function useMinuteSeries(projectId: string | null) {
  const vars = useMemo(() => ({ projectId, minutes: MINUTES }), [projectId]);
  const q = useQuery<{ spansPerMinute: MinuteCount[] }>(SPANS_PER_MINUTE, vars, {
    pollMs: 60_000,
  });
  // null until the first answer is in the series: the answer arrives one render before the effect
  // copies it, and that render drew an empty sparkline.
  const [series, setSeries] = useState<readonly MinuteCount[] | null>(null);
  useEffect(() => {
    if (q.data) setSeries(q.data.spansPerMinute);
  }, [q.data]);
  useSubscription<{ spanNew: { startedAt: string; status: string } }>(
    OVERVIEW_SPAN_NEW,
    vars.projectId === null ? {} : { projectId: vars.projectId },
    (d) => setSeries((s) => (s === null ? s : bumpMinute(s, d.spanNew))),
  );
  return { series: series ?? [], error: q.error, refetch: q.refetch, loaded: series !== null };
}

/** The overview (`/`): each tile links to the filtered list behind it. Refreshes every 15 s. */
export function Overview() {
  const project = param('project');
  const vars = useMemo(() => ({ projectId: project || null }), [project]);
  const q = useQuery<OverviewData>(OVERVIEW, vars, { pollMs: 15_000 });
  const perMinute = useMinuteSeries(vars.projectId);
  const error = q.error ?? perMinute.error;
  if (error) return <ErrorState error={error} retry={q.error ? q.refetch : perMinute.refetch} />;
  if (!q.data || !perMinute.loaded) return <Loading what="the overview" />;
  const d = q.data;
  const counts = perMinute.series.map((m) => m.spans);
  const rates = perMinute.series.map((m) => (m.spans ? m.errors / m.spans : 0));
  const health = d.sessionHealthCounts;
  const sessionTotal = health.reduce((a, h) => a + h.sessions, 0);
  if (counts.every((c) => c === 0) && sessionTotal === 0 && d.healthServers.length === 0)
    return (
      <FirstSpan>
        <p>No spans, sessions or servers yet{project ? ` in project ${project}` : ''}.</p>
      </FirstSpan>
    );
  // The headline figures are of the last whole minute: the current one is still filling (a
  // single span in it would read "1" and, if it failed, "100 %").
  const lastRate = rates.at(-2) ?? 0;
  const breached = d.sloStatus.filter((s) => s.status === 'breached');
  const link = (path: string, query: Record<string, string> = {}) =>
    href(path, { project, ...query });
  return (
    <div class="tiles">
      <a class="tile" href={link('/live')}>
        <h2>Spans per minute</h2>
        <div class="big">{counts.at(-2) ?? 0}</div>
        <p class="muted">in the last whole minute</p>
        <Sparkline
          values={counts}
          label={`Spans per minute, last ${MINUTES} minutes: ${counts.join(', ')}`}
        />
      </a>
      <a class="tile" href={link('/live', { status: 'error' })}>
        <h2>Error rate</h2>
        <div class="big">{(lastRate * 100).toFixed(1)}%</div>
        <p class="muted">in the last whole minute</p>
        <Sparkline values={rates} bad label={`Error rate per minute, last ${MINUTES} minutes`} />
      </a>
      <section class="tile" aria-labelledby="t-sessions">
        <h2 id="t-sessions">
          <a href={link('/sessions', { hours: '24' })}>Sessions (24 h)</a>
        </h2>
        <div class="big">{sessionTotal}</div>
        <ul>
          {health.map(({ healthTag: tag, sessions: n }) => (
            <li key={tag}>
              <a href={link('/sessions', { health: tag, hours: '24' })}>{tag}</a> <span>{n}</span>
            </li>
          ))}
        </ul>
      </section>
      <a class="tile" href={link('/costs', { window: '24h' })}>
        <h2>Cost today</h2>
        <div class="big">${d.costBreakdown.totalCostUsd.toFixed(2)}</div>
        <span class="muted">last 24 hours</span>
      </a>
      <section class="tile" aria-labelledby="t-servers">
        <h2 id="t-servers">
          <a href={link('/servers')}>Servers</a>
        </h2>
        <div class="big">{d.healthServers.length}</div>
        <ul>
          {countBy(d.healthServers, (s) => s.status).map(([status, n]) => (
            <li key={status}>
              <a href={link('/servers', { status })}>{status}</a> <span>{n}</span>
            </li>
          ))}
          {countBy(
            d.healthServers.filter((s) => s.scorecard),
            (s) => `grade ${s.scorecard?.grade}`,
          ).map(([g, n]) => (
            <li key={g}>
              <a href={link('/servers', { grade: g.slice(6) })}>{g}</a> <span>{n}</span>
            </li>
          ))}
        </ul>
      </section>
      <a class="tile" href={link('/alerts', { status: 'firing' })}>
        <h2>Firing alerts</h2>
        <div class={d.alertCounts.firing ? 'big bad' : 'big'}>{d.alertCounts.firing}</div>
        <span class="muted">{d.alertCounts.needsAttention} need attention</span>
      </a>
      <a class="tile" href={link('/slos', { status: 'breached' })}>
        <h2>SLOs breached</h2>
        <div class={breached.length ? 'big bad' : 'big'}>{breached.length}</div>
        <span class="muted">of {d.sloStatus.length}</span>
      </a>
    </div>
  );
}
