import { useEffect, useState } from 'preact/hooks';
import { describeError, query, type ReadableError } from '../../graphql/client.ts';
import { param } from '../../router.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { DriftEventView } from './drift-event.tsx';
import { DRIFT, type DriftData, type DriftEventItem } from './drift-queries.ts';
import './tabs.css';

// Each event carries two tool lists: keep pages small.
const PAGE = 10;

interface State {
  events: DriftEventItem[];
  cursor: string | null;
  more: boolean;
  loading: boolean;
  error?: ReadableError;
}

/**
 * The server page's drift tab: the server's drift events, newest first, each with the changes the
 * server classified (breaking, warning, compatible) and a diff of the tool schemas before and
 * after, older events paged in on request.
 */
export function DriftTab({ name }: { name: string }) {
  const projectId = param('project') || null;
  const [s, setS] = useState<State>({ events: [], cursor: null, more: false, loading: true });
  const [retry, setRetry] = useState(0);
  const load = (after: string | null) => {
    setS((x) => ({ ...x, loading: true, error: undefined }));
    query<DriftData>(DRIFT, { name, projectId, first: PAGE, after }).then(
      (d) =>
        setS((x) => ({
          events: [
            ...(after ? x.events : []),
            ...d.driftHistoryConnection.edges.map((e) => e.node),
          ],
          cursor: d.driftHistoryConnection.pageInfo.endCursor,
          more: d.driftHistoryConnection.pageInfo.hasNextPage,
          loading: false,
        })),
      (err: unknown) => setS((x) => ({ ...x, loading: false, error: describeError(err) })),
    );
  };
  useEffect(() => load(null), [name, projectId, retry]);

  if (s.error && s.events.length === 0)
    return <ErrorState error={s.error} retry={() => setRetry((r) => r + 1)} />;
  if (s.loading && s.events.length === 0) return <Loading what="drift history" />;
  if (s.events.length === 0)
    return (
      <p class="muted">
        No drift recorded: the server's tool list has not changed since it was first seen.
      </p>
    );
  return (
    <section class="server-drift" aria-labelledby="drift-h">
      <h2 id="drift-h">Drift history</h2>
      {s.events.map((e) => (
        <DriftEventView key={e.id} event={e} />
      ))}
      {s.error && <ErrorState error={s.error} retry={() => load(s.cursor)} />}
      {s.more && (
        <button disabled={s.loading} aria-busy={s.loading} onClick={() => load(s.cursor)}>
          {s.loading ? 'Loading…' : 'Load older drift'}
        </button>
      )}
    </section>
  );
}
