import { useMemo } from 'preact/hooks';
import { useQuery } from '../../graphql/hooks.ts';
import { href, param } from '../../router.ts';
import { ErrorState, FirstSpan, Loading } from '../../shell/states.tsx';
import { OVERVIEW, type OverviewData } from './queries.ts';
import { Sparkline } from './sparkline.tsx';

const MINUTES = 30;

/** Spans per minute and error rate per minute over the last MINUTES minutes. */
function perMinute(spans: { startedAt: string; status: string }[], now: number) {
  const counts = new Array<number>(MINUTES).fill(0);
  const errors = new Array<number>(MINUTES).fill(0);
  for (const s of spans) {
    const ago = Math.floor((now - new Date(s.startedAt).getTime()) / 60_000);
    if (ago < 0 || ago >= MINUTES) continue;
    const i = MINUTES - 1 - ago;
    counts[i] = (counts[i] ?? 0) + 1;
    if (s.status === 'error' || s.status === 'timeout') errors[i] = (errors[i] ?? 0) + 1;
  }
  return { counts, rates: counts.map((c, i) => (c ? (errors[i] ?? 0) / c : 0)) };
}

function countBy<T>(items: T[], key: (t: T) => string): [string, number][] {
  const m = new Map<string, number>();
  for (const i of items) m.set(key(i), (m.get(key(i)) ?? 0) + 1);
  return [...m.entries()].sort((a, b) => b[1] - a[1]);
}

/** The overview (`/`): each tile links to the filtered list behind it. Refreshes every 15 s. */
export function Overview() {
  const project = param('project');
  const vars = useMemo(() => {
    const since = new Date(Date.now() - 24 * 3600_000).toISOString();
    const spanSince = new Date(Date.now() - MINUTES * 60_000).toISOString();
    return {
      projectId: project || null,
      since,
      spanFilter: { projectId: project || null, since: spanSince },
    };
  }, [project]);
  const q = useQuery<OverviewData>(OVERVIEW, vars, { pollMs: 15_000 });
  if (q.error) return <ErrorState error={q.error} retry={q.refetch} />;
  if (!q.data) return <Loading what="the overview" />;
  const d = q.data;
  const spans = d.spans.edges.map((e) => e.node);
  const sessions = d.sessions.edges.map((e) => e.node);
  if (spans.length === 0 && sessions.length === 0 && d.healthServers.length === 0)
    return (
      <FirstSpan>
        <p>No spans, sessions or servers yet{project ? ` in project ${project}` : ''}.</p>
      </FirstSpan>
    );
  const { counts, rates } = perMinute(spans, Date.now());
  const lastRate = rates.at(-1) ?? 0;
  const breached = d.sloStatus.filter((s) => s.status === 'breached');
  const link = (path: string, query: Record<string, string> = {}) =>
    href(path, { project, ...query });
  return (
    <div class="tiles">
      <a class="tile" href={link('/live')}>
        <h2>Spans per minute</h2>
        <div class="big">{counts.at(-1) ?? 0}</div>
        <Sparkline
          values={counts}
          label={`Spans per minute, last ${MINUTES} minutes: ${counts.join(', ')}`}
        />
      </a>
      <a class="tile" href={link('/live', { status: 'error' })}>
        <h2>Error rate</h2>
        <div class="big">{(lastRate * 100).toFixed(1)}%</div>
        <Sparkline values={rates} bad label={`Error rate per minute, last ${MINUTES} minutes`} />
      </a>
      <section class="tile" aria-labelledby="t-sessions">
        <h2 id="t-sessions">
          <a href={link('/sessions', { hours: '24' })}>Sessions (24 h)</a>
        </h2>
        <div class="big">
          {sessions.length}
          {d.sessions.pageInfo.hasNextPage ? '+' : ''}
        </div>
        <ul>
          {countBy(sessions, (s) => s.healthTag).map(([tag, n]) => (
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
