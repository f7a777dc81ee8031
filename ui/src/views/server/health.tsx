import { useMemo } from 'preact/hooks';
import { useQuery } from '../../graphql/hooks.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { CatalogSection } from './catalog.tsx';
import { HealthHistory } from './health-history.tsx';
import { SCORECARD, type ScorecardData } from './health-queries.ts';

/** The server page's health tab: status and latency history, scorecard, catalog entry. */
export function HealthTab({ name, project }: { name: string; project: string }) {
  const vars = useMemo(() => ({ name, projectId: project || null }), [name, project]);
  return (
    <div class="health-tab">
      <HealthHistory vars={vars} />
      <ScorecardSection vars={vars} />
      <CatalogSection vars={vars} />
    </div>
  );
}

type Vars = { name: string; projectId: string | null };

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
