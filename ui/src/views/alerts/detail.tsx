import { useState } from 'preact/hooks';
import { describeError, mutate } from '../../graphql/client.ts';
import { useQuery } from '../../graphql/hooks.ts';
import { isAdmin } from '../../shell/session.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { ACKNOWLEDGE, ALERT, RESOLVE, SNOOZE, type AlertItem, type AlertMove } from './queries.ts';
import { Severity, StatusText } from './row.tsx';
import { sourceLink } from './source.ts';

const SNOOZES: [number, string][] = [
  [15, '15 minutes'],
  [60, '1 hour'],
  [240, '4 hours'],
  [1440, '1 day'],
];

interface Props {
  id: string;
  project: string;
  /** A move made on this page since the alert was read. */
  move: AlertMove | undefined;
  onMove: (m: AlertMove) => void;
  close: string;
}

/** The open alert (`?alert=<id>`): everything it carries, where it came from, and its actions. */
export function AlertDetail(props: Props) {
  const q = useQuery<{ alert: AlertItem | null }>(ALERT, {
    id: props.id,
    projectId: props.project || null,
  });
  const base = q.data?.alert;
  const a = base && props.move ? { ...base, ...props.move } : base;
  return (
    <section class="alert-detail" aria-labelledby="alert-detail-title">
      {q.error && <ErrorState error={q.error} retry={q.refetch} />}
      {q.fetching && !q.data && <Loading what="the alert" />}
      {q.data && !a && (
        <>
          <h2 id="alert-detail-title">Alert not found</h2>
          <p>
            No alert <code>{props.id}</code> in this project (resolved alerts are kept 90 days).
          </p>
        </>
      )}
      {a && <Body alert={a} project={props.project} onMove={props.onMove} />}
      <p>
        <a href={props.close}>Close</a>
      </p>
    </section>
  );
}

function Body({
  alert: a,
  project,
  onMove,
}: {
  alert: AlertItem;
  project: string;
  onMove: Props['onMove'];
}) {
  const src = sourceLink(a.source, project);
  const fields = Object.entries(a.fields ?? {});
  return (
    <>
      <h2 id="alert-detail-title">{a.title}</h2>
      <p class="alert-meta">
        <Severity value={a.severity} /> <code>{a.type}</code> <StatusText alert={a} />
      </p>
      <p class="alert-message">{a.message}</p>
      <dl class="alert-facts">
        <dt>Raised by</dt>
        <dd>{src ? <a href={src.href}>{src.label}</a> : 'not linked to one source'}</dd>
        <dt>Fired</dt>
        <dd>
          <Time value={a.firedAt} />
        </dd>
        {a.acknowledgedAt && (
          <>
            <dt>Acknowledged</dt>
            <dd>
              <Time value={a.acknowledgedAt} />
            </dd>
          </>
        )}
        {a.resolvedAt && (
          <>
            <dt>Resolved</dt>
            <dd>
              <Time value={a.resolvedAt} />
            </dd>
          </>
        )}
        <dt>Chat delivery</dt>
        <dd>
          {a.delivery}
          {a.deliveryError ? `: ${a.deliveryError}` : ''}
        </dd>
      </dl>
      {fields.length > 0 && (
        <table class="alert-fields">
          <caption>Facts</caption>
          <tbody>
            {fields.map(([k, v]) => (
              <tr key={k}>
                <th scope="row">{k}</th>
                <td>{v === null ? '—' : String(v)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {isAdmin() ? (
        <Actions alert={a} project={project} onMove={onMove} />
      ) : (
        <p class="muted">
          Viewers can read alerts; acknowledging, snoozing and resolving need an admin.
        </p>
      )}
    </>
  );
}

/** Acknowledge and snooze (firing alerts only, as the server allows), resolve with a confirm step. */
function Actions({
  alert: a,
  project,
  onMove,
}: {
  alert: AlertItem;
  project: string;
  onMove: Props['onMove'];
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [minutes, setMinutes] = useState(60);
  const [confirming, setConfirming] = useState(false);
  const run = async (
    doc: string | typeof ACKNOWLEDGE,
    vars: Record<string, unknown>,
    key: string,
  ) => {
    setBusy(true);
    setError('');
    try {
      const d = await mutate<Record<string, AlertMove>>(doc, {
        id: a.id,
        projectId: project || null,
        ...vars,
      });
      const m = d[key];
      if (m) onMove(m);
      setConfirming(false);
    } catch (err) {
      setError(describeError(err).message);
    } finally {
      setBusy(false);
    }
  };
  const firing = a.status === 'firing';
  return (
    <div class="alert-actions" aria-busy={busy}>
      <button
        type="button"
        disabled={busy || !firing}
        onClick={() => void run(ACKNOWLEDGE, {}, 'acknowledgeAlert')}
      >
        Acknowledge
      </button>
      <label>
        Snooze for
        <select
          value={String(minutes)}
          disabled={busy || !firing}
          onChange={(e) => setMinutes(Number(e.currentTarget.value))}
        >
          {SNOOZES.map(([m, label]) => (
            <option key={m} value={String(m)}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        disabled={busy || !firing}
        onClick={() => void run(SNOOZE, { minutes }, 'snoozeAlert')}
      >
        Snooze
      </button>
      {confirming ? (
        <span class="confirm">
          Resolve this alert? It leaves the active view.{' '}
          <button
            type="button"
            class="danger"
            disabled={busy}
            onClick={() => void run(RESOLVE, {}, 'resolveAlert')}
          >
            Confirm resolve
          </button>{' '}
          <button type="button" disabled={busy} onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </span>
      ) : (
        <button
          type="button"
          disabled={busy || a.status === 'resolved'}
          onClick={() => setConfirming(true)}
        >
          Resolve…
        </button>
      )}
      {!firing && a.status !== 'resolved' && (
        <p class="muted">Only a firing alert can be acknowledged or snoozed.</p>
      )}
      {error && (
        <p class="bad" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
