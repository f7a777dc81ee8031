import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError, query, type ReadableError } from '../../graphql/client.ts';
import { useSubscription } from '../../graphql/hooks.ts';
import { field, readState } from '../../lib/url-state.ts';
import { href, location, setParams } from '../../router.ts';
import { ErrorState } from '../../shell/states.tsx';
import { viewedProject } from '../../shell/toasts.tsx';
import { AlertConfigSection } from './config.tsx';
import { AlertDetail } from './detail.tsx';
import { AlertRow } from './row.tsx';
import { ALERT_FIRED, ALERTS, type AlertItem, type AlertMove, type AlertsData } from './queries.ts';
import { fromEvent } from './source.ts';
import './alerts.css';

/** The alert types of docs/alerts.md, for the type filter. */
export const ALERT_TYPES = [
  'agent_failure',
  'slo_breached',
  'anomaly_critical',
  'anomaly_warning',
  'security_critical',
  'security_high',
  'mcp_down',
  'mcp_recovered',
  'schema_drift',
  'high_latency',
  'loop_detected',
  'budget_exceeded',
  'circuit_breaker_open',
  'budget_warning',
] as const;
const SEVERITIES = ['critical', 'warning', 'info'] as const;
const STATUSES: [string, string][] = [
  ['', 'active (not resolved)'],
  ['firing', 'firing'],
  ['acknowledged', 'acknowledged'],
  ['snoozed', 'snoozed'],
  ['resolved', 'resolved'],
  ['all', 'all'],
];
// 25 alerts with their source stay under the query cost limit (src/graphql/limits.ts); 50 do not.
const PAGE = 25;

const STATE = {
  project: field.string(),
  status: field.oneOf(['', 'firing', 'acknowledged', 'snoozed', 'resolved', 'all'], ''),
  type: field.oneOf(['', ...ALERT_TYPES], ''),
  severity: field.oneOf(['', ...SEVERITIES], ''),
  alert: field.string(),
};

interface ListState {
  rows: AlertItem[];
  cursor: string | null;
  more: boolean;
  loading: boolean;
  error?: ReadableError;
}

/** Whether a newly fired alert belongs in the list the filters show. */
function matches(a: AlertItem, s: { status: string; type: string; severity: string }) {
  return (
    a.projectId === viewedProject() &&
    ['', 'all', a.status].includes(s.status) &&
    (!s.type || s.type === a.type) &&
    (!s.severity || s.severity === a.severity)
  );
}

/** The alert inbox (`/alerts`): filters and the open alert in the URL, live arrivals, config. */
export default function Alerts() {
  const s = readState(location.value.query, STATE);
  const vars = {
    projectId: s.project || null,
    status: s.status || null,
    type: s.type || null,
    severity: s.severity || null,
    first: PAGE,
  };
  const key = JSON.stringify(vars);
  const [list, setList] = useState<ListState>({
    rows: [],
    cursor: null,
    more: false,
    loading: true,
  });
  const [moves, setMoves] = useState<Record<string, AlertMove>>({});
  const [retry, setRetry] = useState(0);
  const generation = useRef(0);

  const load = (after: string | null) => {
    const gen = after ? generation.current : ++generation.current;
    setList((l) => ({ ...(after ? l : { ...l, rows: [] }), loading: true, error: undefined }));
    query<AlertsData>(ALERTS, { ...vars, after }).then(
      (d) => {
        if (gen !== generation.current) return;
        setList((l) => ({
          rows: [...(after ? l.rows : []), ...d.alerts.edges.map((e) => e.node)],
          cursor: d.alerts.pageInfo.endCursor,
          more: d.alerts.pageInfo.hasNextPage,
          loading: false,
        }));
      },
      (err: unknown) => {
        if (gen === generation.current)
          setList((l) => ({ ...l, loading: false, error: describeError(err) }));
      },
    );
  };
  useEffect(() => load(null), [key, retry]);

  const filters = useRef(s);
  filters.current = s;
  useSubscription<{ alertFired: { data: Record<string, unknown> } }>(
    ALERT_FIRED,
    undefined,
    (d) => {
      const a = fromEvent(d.alertFired.data);
      if (!a || !matches(a, filters.current)) return;
      setList((l) => (l.rows.some((r) => r.id === a.id) ? l : { ...l, rows: [a, ...l.rows] }));
    },
  );

  const moved = (m: AlertMove) => setMoves((all) => ({ ...all, [m.id]: m }));
  const rows = list.rows.map((r) => (moves[r.id] ? { ...r, ...moves[r.id] } : r));

  return (
    <div class="alerts">
      <form class="filters" aria-label="Filter alerts" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select value={s.status} onChange={(e) => setParams({ status: e.currentTarget.value })}>
            {STATUSES.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Type
          <select value={s.type} onChange={(e) => setParams({ type: e.currentTarget.value })}>
            <option value="">any</option>
            {ALERT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Severity
          <select
            value={s.severity}
            onChange={(e) => setParams({ severity: e.currentTarget.value })}
          >
            <option value="">any</option>
            {SEVERITIES.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        </label>
      </form>
      {s.alert && (
        <AlertDetail
          id={s.alert}
          project={s.project}
          move={moves[s.alert]}
          onMove={moved}
          close={href('/alerts', { ...Object.fromEntries(location.value.query), alert: null })}
        />
      )}
      <p class="list-bar" role="status" aria-live="polite">
        {list.loading && list.rows.length === 0
          ? 'Loading alerts…'
          : `${rows.length}${list.more ? '+' : ''} alert${rows.length === 1 ? '' : 's'}, newest first`}
      </p>
      {list.error && <ErrorState error={list.error} retry={() => setRetry((r) => r + 1)} />}
      <div class="alerts-scroll">
        <table class="alerts-table">
          <caption class="alerts-sr-only">Alerts, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Fired</th>
              <th scope="col">Severity</th>
              <th scope="col">Type</th>
              <th scope="col">Alert</th>
              <th scope="col">Raised by</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((a) => (
              <AlertRow key={a.id} alert={a} project={s.project} selected={a.id === s.alert} />
            ))}
          </tbody>
        </table>
      </div>
      {!list.loading && !list.error && rows.length === 0 && (
        <p class="muted">No alerts match these filters.</p>
      )}
      {list.more && (
        <button
          type="button"
          disabled={list.loading}
          aria-busy={list.loading}
          onClick={() => load(list.cursor)}
        >
          Load older alerts
        </button>
      )}
      <AlertConfigSection project={s.project} />
    </div>
  );
}
