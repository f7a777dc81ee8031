import { useMemo } from 'preact/hooks';
import { TimeChart, type ChartSeries } from '../../charts/time-chart.tsx';
import { useQuery } from '../../graphql/hooks.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { CatalogSection } from './catalog.tsx';
import {
  HEALTH_HISTORY,
  SCORECARD,
  type HealthPoint,
  type ScorecardData,
} from './health-queries.ts';

/** The newest checks shown (healthHistory's largest page). */
const POINTS = 100;
/** Status as a level on the status chart: up highest, down lowest, stale/unknown as gaps. */
const LEVEL: Record<string, number> = { up: 3, degraded: 2, down: 1 };

/** The server page's health tab: status and latency history, scorecard, catalog entry. */
export function HealthTab({ name, project }: { name: string; project: string }) {
  const vars = useMemo(() => ({ name, projectId: project || null }), [name, project]);
  return (
    <div class="health-tab">
      <History vars={vars} />
      <ScorecardSection vars={vars} />
      <CatalogSection vars={vars} />
    </div>
  );
}

type Vars = { name: string; projectId: string | null };

function History({ vars }: { vars: Vars }) {
  const hv = useMemo(() => ({ ...vars, limit: POINTS }), [vars]);
  const q = useQuery<{ healthHistory: HealthPoint[] }>(HEALTH_HISTORY, hv, { pollMs: 30_000 });
  const points = useMemo(
    () => (q.data?.healthHistory ?? []).filter((p) => p.checkedAt).reverse(),
    [q.data],
  );
  const chart = useMemo(() => {
    const x = points.map((p) => Date.parse(p.checkedAt!));
    const latency: ChartSeries[] = [
      { label: 'Latency', values: points.map((p) => p.latencyMs), unit: 'ms' },
    ];
    const status: ChartSeries[] = [
      {
        label: 'Status (3 up, 2 degraded, 1 down)',
        values: points.map((p) => LEVEL[p.status] ?? null),
        color: '--ok',
      },
    ];
    return { x, latency, status };
  }, [points]);
  return (
    <section aria-labelledby="h-history">
      <h3 id="h-history">Status and latency</h3>
      {q.error && <ErrorState error={q.error} retry={q.refetch} />}
      {!q.data && !q.error && <Loading what="health history" />}
      {q.data && points.length === 0 && <p class="muted">Never checked yet.</p>}
      {points.length > 0 && (
        <>
          <p class="muted">The last {points.length} checks, oldest left.</p>
          <div class="health-charts">
            <TimeChart x={chart.x} series={chart.latency} label="Health check latency over time" />
            <TimeChart
              x={chart.x}
              series={chart.status}
              label="Health check status over time"
              bars
              height={120}
            />
          </div>
          <div class="history-scroll" tabIndex={0} aria-label="Health checks, scrollable">
            <table class="data">
              <caption>Health checks, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Checked</th>
                  <th scope="col">Status</th>
                  <th scope="col" class="num">
                    Latency
                  </th>
                  <th scope="col" class="num">
                    Tools
                  </th>
                  <th scope="col">Drift</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {[...points].reverse().map((p, i) => (
                  <tr key={`${p.checkedAt}-${i}`}>
                    <th scope="row">
                      <Time value={p.checkedAt!} />
                    </th>
                    <td class={p.status === 'down' ? 'bad' : undefined}>{p.status}</td>
                    <td class="num">
                      {p.latencyMs === null ? '—' : `${Math.round(p.latencyMs)} ms`}
                    </td>
                    <td class="num">{p.toolsCount ?? '—'}</td>
                    <td>{p.schemaDrift ? 'drift' : 'no'}</td>
                    <td class="wrap">{p.error ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

function ScorecardSection({ vars }: { vars: Vars }) {
  const q = useQuery<ScorecardData>(SCORECARD, vars);
  const sc = q.data?.scorecard;
  return (
    <section aria-labelledby="h-scorecard">
      <h3 id="h-scorecard">Scorecard</h3>
      {q.error &&
        (q.error.code === 'NOT_FOUND' ? (
          <p class="muted">No scorecard: Spyglass does not know this server's health yet.</p>
        ) : (
          <ErrorState error={q.error} retry={q.refetch} />
        ))}
      {!q.data && !q.error && <Loading what="the scorecard" />}
      {sc && (
        <>
          <p class="scorecard-grade">
            Grade <strong class={`grade grade-${sc.grade[0]}`}>{sc.grade}</strong>, score{' '}
            {sc.score.toFixed(1)} of 100 (computed <Time value={sc.computedAt} />)
          </p>
          {sc.capApplied ? (
            <p class="scorecard-cap">
              Capped at {sc.capApplied.maxGrade} by <code>{sc.capApplied.reason}</code>:{' '}
              {sc.capApplied.description}
            </p>
          ) : (
            <p class="muted">No cap applied: the grade is the weighted score.</p>
          )}
          <table class="data scorecard-table">
            <caption>Dimensions</caption>
            <thead>
              <tr>
                <th scope="col">Dimension</th>
                <th scope="col" class="num">
                  Weight
                </th>
                <th scope="col" class="num">
                  Score
                </th>
                <th scope="col" class="num">
                  Weighted
                </th>
                <th scope="col">Notes</th>
              </tr>
            </thead>
            <tbody>
              {sc.dimensions.map((d) => (
                <tr key={d.name}>
                  <th scope="row">{d.name.replace('_', ' ')}</th>
                  <td class="num">{Math.round(d.weight * 100)}%</td>
                  <td class="num">{d.rawScore.toFixed(1)}</td>
                  <td class="num">{d.weightedScore.toFixed(1)}</td>
                  <td class="wrap">{d.notes ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
