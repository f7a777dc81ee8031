import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError, mutate, type ReadableError } from '../../graphql/client.ts';
import { href } from '../../router.ts';
import { isAdmin } from '../../shell/session.ts';
import { Time } from '../../shell/time.tsx';
import { DELETE_SLO, UPDATE_SLO, type SloDefinition, type SloStatusItem } from './queries.ts';
import { SloForm } from './slo-form.tsx';
import { METRIC_LABEL, StatusTag, formatValue } from './format.tsx';

/**
 * One SLO (`?slo=<id>`): its status and definition; admins edit it in place or delete it after an
 * inline confirmation.
 */
export function SloDetail(props: {
  slo: SloDefinition;
  status: SloStatusItem | undefined;
  projectId: string | null;
  onChanged: () => void;
  onDeleted: () => void;
}) {
  const { slo, status } = props;
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [error, setError] = useState<ReadableError | null>(null);
  // The confirmation takes focus (on Cancel, the safe choice) so keyboard users land on it.
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) cancel.current?.focus();
  }, [confirming]);
  const remove = () => {
    setDeleting(true);
    setError(null);
    mutate(DELETE_SLO, { sloId: slo.sloId, projectId: props.projectId }).then(
      () => props.onDeleted(),
      (err: unknown) => {
        setDeleting(false);
        setError(describeError(err));
      },
    );
  };
  return (
    <section class="slo-detail" aria-labelledby="slo-detail-title">
      <h2 id="slo-detail-title">
        SLO: {slo.agentName}, {METRIC_LABEL[slo.metric] ?? slo.metric}
      </h2>
      <dl>
        <dt>Agent</dt>
        <dd>
          <a href={href(`/agents/${encodeURIComponent(slo.agentName)}`)}>{slo.agentName}</a>
        </dd>
        <dt>Target</dt>
        <dd>
          {slo.metric === 'latency_p99' ? 'at most ' : 'at least '}
          {formatValue(slo.metric, slo.threshold)} over {slo.windowHours} h
        </dd>
        <dt>Status</dt>
        <dd>{status ? <StatusTag status={status.status} /> : '—'}</dd>
        <dt>Current</dt>
        <dd>
          {status ? formatValue(slo.metric, status.currentValue) : '—'}
          {status && ` (${status.sampleSize} sessions)`}
        </dd>
        <dt>Since</dt>
        <dd>{status?.since ? <Time value={status.since} /> : '—'}</dd>
        <dt>Created</dt>
        <dd>
          <Time value={slo.createdAt} />
        </dd>
        <dt>Updated</dt>
        <dd>
          <Time value={slo.updatedAt} />
        </dd>
        <dt>Id</dt>
        <dd class="mono">{slo.sloId}</dd>
      </dl>
      {isAdmin() && !editing && !confirming && (
        <div class="form-actions" data-admin>
          <button type="button" onClick={() => setEditing(true)}>
            Edit
          </button>
          <button type="button" class="danger" onClick={() => setConfirming(true)}>
            Delete
          </button>
        </div>
      )}
      {isAdmin() && editing && (
        <SloForm
          id="edit-slo"
          key={slo.sloId + slo.updatedAt}
          legend="Edit this SLO"
          focus
          submit="Save"
          initial={slo}
          onCancel={() => setEditing(false)}
          onSave={async (input) => {
            await mutate(UPDATE_SLO, { sloId: slo.sloId, input, projectId: props.projectId });
            setEditing(false);
            props.onChanged();
          }}
        />
      )}
      {isAdmin() && confirming && (
        <div class="confirm" role="group" aria-labelledby="confirm-delete" aria-busy={deleting}>
          <p id="confirm-delete">
            Delete the SLO of {slo.agentName} ({METRIC_LABEL[slo.metric] ?? slo.metric})? Its
            recorded status goes with it.
          </p>
          {error && (
            <p class="form-error" role="alert">
              {error.message} <code>{error.code}</code>
            </p>
          )}
          <button type="button" class="danger" disabled={deleting} onClick={remove}>
            {deleting ? 'Deleting…' : 'Confirm delete'}
          </button>
          <button
            type="button"
            ref={cancel}
            disabled={deleting}
            onClick={() => setConfirming(false)}
          >
            Cancel
          </button>
        </div>
      )}
    </section>
  );
}
