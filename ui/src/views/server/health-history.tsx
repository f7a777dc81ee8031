import { useEffect, useMemo, useState } from 'preact/hooks';
import { TimeChart, type ChartSeries } from '../../charts/time-chart.tsx';
import { describeError, query, type ReadableError } from '../../graphql/client.ts';
import { useQuery } from '../../graphql/hooks.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { HEALTH_HISTORY, type HealthPoint, type HistoryData } from './health-queries.ts';

/** Checks per page (the connection's largest page). */
const PAGE = 100;
/** Status as a level on the status chart: up highest, down lowest, stale/unknown as gaps. */
const LEVEL: Record<string, number> = { up: 3, degraded: 2, down: 1 };

interface Older {
  points: HealthPoint[];
  cursor: string | null;
  more: boolean;
  loading: boolean;
  error?: ReadableError;
}

/**
 * Status and latency of the newest checks as two charts and a table. The newest page refreshes
 * every 30 s until older pages are loaded ("Load older checks"), which freezes the window.
 */
export function HealthHistory({ vars }: { vars: { name: string; projectId: string | null } }) {
  const [older, setOlder] = useState<Older | null>(null);
  useEffect(() => setOlder(null), [vars]);
  const first = useMemo(() => ({ ...vars, first: PAGE }), [vars]);
  const q = useQuery<HistoryData>(HEALTH_HISTORY, first, older ? {} : { pollMs: 30_000 });
  const conn = q.data?.healthHistoryConnection;
  const newestFirst = useMemo(
    () =>
      [...(conn?.edges.map((e) => e.node) ?? []), ...(older?.points ?? [])].filter(
        (p) => p.checkedAt,
      ),
    [conn, older?.points],
  );
  const chart = useMemo(() => {
    const points = [...newestFirst].reverse();
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
  }, [newestFirst]);
  const more = older ? older.more : !!conn?.pageInfo.hasNextPage;
  const loadOlder = () => {
    const after = older ? older.cursor : (conn?.pageInfo.endCursor ?? null);
    setOlder((o) => ({ points: o?.points ?? [], cursor: after, more: true, loading: true }));
    query<HistoryData>(HEALTH_HISTORY, { ...first, after }).then(
      (d) =>
        setOlder((o) => ({
          points: [...(o?.points ?? []), ...d.healthHistoryConnection.edges.map((e) => e.node)],
          cursor: d.healthHistoryConnection.pageInfo.endCursor,
          more: d.healthHistoryConnection.pageInfo.hasNextPage,
          loading: false,
        })),
      (err: unknown) => setOlder((o) => o && { ...o, loading: false, error: describeError(err) }),
    );
  };
  return (
    <section aria-labelledby="h-history">
      <h3 id="h-history">Status and latency</h3>
      {q.error && <ErrorState error={q.error} retry={q.refetch} />}
      {!q.data && !q.error && <Loading what="health history" />}
      {q.data && newestFirst.length === 0 && <p class="muted">Never checked yet.</p>}
      {newestFirst.length > 0 && (
        <>
          <div class="history-bar">
            <span class="muted" role="status">
              The last {newestFirst.length} checks, oldest left.
            </span>
            {more && (
              <button
                type="button"
                disabled={older?.loading}
                aria-busy={older?.loading ? 'true' : 'false'}
                onClick={loadOlder}
              >
                {older?.loading ? 'Loading…' : `Load ${PAGE} older checks`}
              </button>
            )}
          </div>
          {older?.error && <ErrorState error={older.error} retry={loadOlder} />}
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
          <HistoryTable points={newestFirst} />
        </>
      )}
    </section>
  );
}

function HistoryTable({ points }: { points: HealthPoint[] }) {
  return (
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
          {points.map((p, i) => (
            <tr key={`${p.checkedAt}-${i}`}>
              <th scope="row">
                <Time value={p.checkedAt!} />
              </th>
              <td class={p.status === 'down' ? 'bad' : undefined}>{p.status}</td>
              <td class="num">{p.latencyMs === null ? '—' : `${Math.round(p.latencyMs)} ms`}</td>
              <td class="num">{p.toolsCount ?? '—'}</td>
              <td>{p.schemaDrift ? 'drift' : 'no'}</td>
              <td class="wrap">{p.error ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
