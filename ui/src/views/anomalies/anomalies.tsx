import { useQuery } from '../../graphql/hooks.ts';
import { field, readState } from '../../lib/url-state.ts';
import type { PageProps } from '../../pages.ts';
import { href, location, setParams } from '../../router.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { AnomalyChart } from './anomaly-chart.tsx';
import { METRIC_LABEL, formatValue } from './format.ts';
import { ANOMALIES, type AnomaliesData, type AnomalyItem } from './queries.ts';
import './anomalies.css';

const STATE = {
  project: field.string(),
  server: field.string(),
  severity: field.oneOf(['', 'critical', 'warning'], ''),
  metric: field.oneOf(['', 'error_rate', 'latency_ms'], ''),
  /** The charted anomaly: project, server, tool and metric, `|`-joined after URI-encoding each. */
  sel: field.string(),
};

const keyOf = (a: AnomalyItem) =>
  [a.projectId, a.serverName, a.toolName, a.metric].map(encodeURIComponent).join('|');

/**
 * Anomalies (`/anomalies`): tools whose hourly error rate or mean latency is unusual against their
 * 7-day baseline now, most severe first, filtered by `?server=`, `?severity=`, `?metric=`; the
 * selected one (`?sel=`, else the first) is charted against its baseline (docs/ui.md#anomalies).
 */
export default function Anomalies(_props: PageProps) {
  const s = readState(location.value.query, STATE);
  const res = useQuery<AnomaliesData>(
    ANOMALIES,
    {
      projectId: s.project || null,
      serverName: s.server || null,
      severity: s.severity || null,
      metric: s.metric || null,
    },
    { pollMs: 60_000 },
  );
  const rows = res.data?.anomalies ?? [];
  const selected = rows.find((a) => keyOf(a) === s.sel) ?? rows[0];
  const many = new Set(rows.map((a) => a.projectId)).size > 1;
  const q = { project: s.project, server: s.server, severity: s.severity, metric: s.metric };
  const server = (a: AnomalyItem) => `/servers/${encodeURIComponent(a.serverName)}`;

  return (
    <div class="anomalies">
      <form
        class="filters"
        aria-label="Filter anomalies"
        onSubmit={(e) => {
          e.preventDefault();
          setParams({ server: String(new FormData(e.currentTarget).get('server') ?? '') });
        }}
      >
        <label>
          Severity
          <select
            value={s.severity}
            onChange={(e) => setParams({ severity: e.currentTarget.value })}
          >
            <option value="">any</option>
            <option value="critical">critical</option>
            <option value="warning">warning</option>
          </select>
        </label>
        <label>
          Metric
          <select value={s.metric} onChange={(e) => setParams({ metric: e.currentTarget.value })}>
            <option value="">any</option>
            <option value="error_rate">error rate</option>
            <option value="latency_ms">mean latency</option>
          </select>
        </label>
        <label>
          Server <input name="server" defaultValue={s.server} key={`s${s.server}`} />
        </label>
        <button type="submit">Apply</button>
      </form>
      {res.error && <ErrorState error={res.error} retry={res.refetch} />}
      {!res.data && !res.error && <Loading what="anomalies" />}
      {res.data && (
        <>
          <p role="status" class="muted">
            {rows.length === 1 ? '1 anomaly' : `${rows.length} anomalies`} now
          </p>
          <div class="table-wrap">
            <table class="data anomaly-table">
              <caption class="visually-hidden">Current anomalies, most severe first</caption>
              <thead>
                <tr>
                  <th scope="col">Severity</th>
                  {many && <th scope="col">Project</th>}
                  <th scope="col">Server</th>
                  <th scope="col">Tool</th>
                  <th scope="col">Metric</th>
                  <th scope="col" class="num">
                    z-score
                  </th>
                  <th scope="col" class="num">
                    Current
                  </th>
                  <th scope="col" class="num">
                    Baseline
                  </th>
                  <th scope="col">Hour scored</th>
                  <th scope="col">Since</th>
                  <th scope="col">
                    <span class="visually-hidden">Chart</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((a) => {
                  const on = a === selected;
                  return (
                    <tr key={keyOf(a)} class={on ? 'selected' : undefined}>
                      <td>
                        <span class={`tag sev-${a.severity}`}>{a.severity}</span>
                      </td>
                      {many && <td>{a.projectId}</td>}
                      <td>
                        <a href={href(server(a), { project: s.project })}>{a.serverName}</a>
                      </td>
                      <td>
                        <a
                          href={href(server(a), {
                            project: s.project,
                            tab: 'tools',
                            tool: a.toolName,
                          })}
                        >
                          {a.toolName}
                        </a>
                      </td>
                      <td>{METRIC_LABEL[a.metric] ?? a.metric}</td>
                      <td class="num">{a.zScore.toFixed(2)}</td>
                      <td class="num bad">{formatValue(a.metric, a.currentValue)}</td>
                      <td class="num">
                        {formatValue(a.metric, a.baselineValue)} ±{' '}
                        {formatValue(a.metric, a.baselineStddev)}
                      </td>
                      <td>
                        <Time value={a.sampleHour} />
                      </td>
                      <td>{a.since ? <Time value={a.since} /> : '—'}</td>
                      <td>
                        <a
                          href={href('/anomalies', { ...q, sel: keyOf(a) })}
                          aria-current={on ? 'true' : undefined}
                        >
                          Chart
                          <span class="visually-hidden">
                            {' '}
                            {a.toolName} {METRIC_LABEL[a.metric]}
                          </span>
                        </a>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
            {rows.length === 0 && (
              <p class="empty">
                No tool is anomalous now
                {s.server || s.severity || s.metric ? ' with these filters' : ''}. The detector
                compares each tool's last hour with its own 7-day hourly baseline.
              </p>
            )}
          </div>
          {selected && <AnomalyChart key={keyOf(selected)} a={selected} />}
        </>
      )}
    </div>
  );
}
