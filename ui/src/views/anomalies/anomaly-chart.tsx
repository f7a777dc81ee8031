import { useMemo } from 'preact/hooks';
import { TimeChart, type ChartSeries } from '../../charts/time-chart.tsx';
import { useQuery } from '../../graphql/hooks.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { METRIC_LABEL, divisor, formatValue, scale, unit } from './format.ts';
import { ANOMALY_SERIES, type AnomalyItem, type SeriesData } from './queries.ts';

/**
 * One anomaly's series: the tool's hourly values over its baseline days and the current hour,
 * with the baseline mean and the warning line (z = 2) marked, then the same numbers as a table.
 */
export function AnomalyChart({ a }: { a: AnomalyItem }) {
  const res = useQuery<SeriesData>(ANOMALY_SERIES, {
    projectId: a.projectId,
    serverName: a.serverName,
    toolName: a.toolName,
    metric: a.metric,
  });
  const points = res.data?.anomalySeries ?? [];
  const d = divisor(a);
  const what = METRIC_LABEL[a.metric] ?? a.metric;
  const sample = new Date(a.sampleHour).getTime();
  const chart = useMemo(() => {
    const x = points.map((p) => new Date(p.hour).getTime());
    const u = unit(a.metric);
    const flat = (v: number) => points.map(() => scale(a.metric, v));
    const series: ChartSeries[] = [
      { label: what, values: points.map((p) => scale(a.metric, p.value)), color: '--bad', unit: u },
      { label: 'baseline mean', values: flat(a.baselineValue), color: '--fg-2', unit: u },
      { label: 'warning (z 2)', values: flat(a.baselineValue + 2 * d), color: '--warn', unit: u },
    ];
    return { x, series };
  }, [points, a.metric, a.baselineValue, d]);

  return (
    <section class="anomaly-series" aria-labelledby="anomaly-series-title">
      <h2 id="anomaly-series-title">
        {a.serverName} · {a.toolName}: {what} per hour
      </h2>
      <p class="muted">
        Baseline {formatValue(a.metric, a.baselineValue)} ±{' '}
        {formatValue(a.metric, a.baselineStddev)} over {a.sampleCount} hours; the hour from{' '}
        <Time value={a.sampleHour} /> had {formatValue(a.metric, a.currentValue)} (z{' '}
        {a.zScore.toFixed(2)}).
      </p>
      {res.error && <ErrorState error={res.error} retry={res.refetch} />}
      {!res.data && !res.error && <Loading what="the series" />}
      {res.data && (
        <>
          <TimeChart
            x={chart.x}
            series={chart.series}
            label={`${what} of ${a.toolName} on ${a.serverName} per hour, with its baseline`}
          />
          <div class="series-scroll" tabIndex={0} aria-label="Hourly values, scrollable">
            <table class="data">
              <caption class="visually-hidden">
                {what} of {a.toolName} per hour
              </caption>
              <thead>
                <tr>
                  <th scope="col">Hour</th>
                  <th scope="col" class="num">
                    Calls
                  </th>
                  <th scope="col" class="num">
                    {what}
                  </th>
                  <th scope="col" class="num">
                    z against the baseline
                  </th>
                </tr>
              </thead>
              <tbody>
                {points.map((p) => {
                  const isSample = new Date(p.hour).getTime() === sample;
                  return (
                    <tr key={p.hour} class={isSample ? 'selected' : undefined}>
                      <th scope="row">
                        <Time value={p.hour} />
                        {isSample && <span class="sample-mark"> (scored hour)</span>}
                      </th>
                      <td class="num">{p.calls}</td>
                      <td class="num">{formatValue(a.metric, p.value)}</td>
                      <td class="num">{((p.value - a.baselineValue) / d).toFixed(2)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
