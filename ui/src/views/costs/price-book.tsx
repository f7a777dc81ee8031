import { useEffect, useRef, useState } from 'preact/hooks';
import { mutate } from '../../graphql/client.ts';
import { useQuery } from '../../graphql/hooks.ts';
import { param, setParams } from '../../router.ts';
import { isAdmin } from '../../shell/session.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { PriceForm, formError } from './price-form.tsx';
import { DELETE_PRICE, PRICING, type Price, type PricingData } from './queries.ts';

const rate = (v: number | null) => (v === null ? '—' : `$${v}`);

/**
 * The price book (docs/costs.md): the record in effect now per model (or every dated record with
 * `history=1` in the URL), filtered by `pq`. Admins add, change and remove the project's own
 * prices; others only read.
 */
export function PriceBook({ projectId }: { projectId: string | null }) {
  const history = param('history') === '1';
  const filter = param('pq').toLowerCase();
  const q = useQuery<PricingData>(PRICING, { projectId, history });
  const [form, setForm] = useState<{ editing: Price | null } | null>(null);
  const [removing, setRemoving] = useState<Price | null>(null);
  const [status, setStatus] = useState('');
  const admin = isAdmin();
  const rows = (q.data?.modelPricing.edges ?? [])
    .map((e) => e.node)
    .filter(
      (p) => !filter || p.modelId.includes(filter) || p.provider.toLowerCase().includes(filter),
    );
  return (
    <section aria-labelledby="price-book" class="price-book">
      <h2 id="price-book">Price book</h2>
      <p class="muted">
        USD per 1M tokens. Shipped defaults apply until the project adds its own record of a model;
        a change is a new record from its effective date, and costs already stored are never
        rewritten.
      </p>
      <div class="price-bar">
        <label>
          Filter models{' '}
          <input
            type="search"
            value={param('pq')}
            onInput={(e) => setParams({ pq: e.currentTarget.value })}
          />
        </label>
        <label>
          <input
            type="checkbox"
            checked={history}
            onChange={(e) => setParams({ history: e.currentTarget.checked ? '1' : null })}
          />{' '}
          Every dated record
        </label>
        {admin && !form && (
          <button
            type="button"
            class="primary"
            data-admin
            onClick={() => setForm({ editing: null })}
          >
            Add a model price
          </button>
        )}
        <span role="status" aria-live="polite">
          {status}
        </span>
      </div>
      {admin && form && (
        <PriceForm
          key={form.editing?.modelId ?? 'new'}
          projectId={projectId}
          editing={form.editing}
          onCancel={() => setForm(null)}
          onDone={(modelId) => {
            setForm(null);
            setStatus(`Saved the price of ${modelId}.`);
            q.refetch();
          }}
        />
      )}
      {q.error && <ErrorState error={q.error} retry={q.refetch} />}
      {!q.data && !q.error && <Loading what="the price book" />}
      {q.data && (
        <div class="costs-table">
          <table class="data" data-testid="price-table">
            <caption class="visually-hidden">Model prices</caption>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Provider</th>
                <th scope="col" class="num">
                  Input
                </th>
                <th scope="col" class="num">
                  Output
                </th>
                <th scope="col" class="num">
                  Cache read
                </th>
                <th scope="col" class="num">
                  Cache write
                </th>
                <th scope="col">Effective from</th>
                <th scope="col">Source</th>
                {admin && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {rows.map((p) => (
                <tr key={`${p.modelId}@${p.effectiveFrom ?? ''}`} data-model={p.modelId}>
                  <th scope="row" class="mono">
                    {p.modelId}
                  </th>
                  <td>{p.provider}</td>
                  <td class="num">{rate(p.inputPer1mUsd)}</td>
                  <td class="num">{rate(p.outputPer1mUsd)}</td>
                  <td class="num">{rate(p.cacheReadPer1mUsd)}</td>
                  <td class="num">{rate(p.cacheWritePer1mUsd)}</td>
                  <td>{p.effectiveFrom ? <Time value={p.effectiveFrom} /> : 'always'}</td>
                  <td>{p.source}</td>
                  {admin && (
                    <td class="actions">
                      <button
                        type="button"
                        data-admin
                        aria-label={`Change the price of ${p.modelId}`}
                        onClick={() => setForm({ editing: p })}
                      >
                        Change
                      </button>
                      {p.source === 'custom' && (
                        <button
                          type="button"
                          data-admin
                          aria-label={`Remove the price of ${p.modelId}`}
                          onClick={() => setRemoving(p)}
                        >
                          Remove
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {admin && removing && (
        <RemoveDialog
          price={removing}
          projectId={projectId}
          onClose={(removed) => {
            setRemoving(null);
            if (removed) {
              setStatus(`Removed the project's prices of ${removing.modelId}.`);
              q.refetch();
            }
          }}
        />
      )}
    </section>
  );
}

/** The confirmation before the project's own records of a model are removed. */
function RemoveDialog(props: {
  price: Price;
  projectId: string | null;
  onClose: (removed: boolean) => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  const id = props.price.modelId;
  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      await mutate(DELETE_PRICE, { projectId: props.projectId, modelId: id });
      props.onClose(true);
    } catch (err) {
      setError(formError(err).message);
      setBusy(false);
    }
  };
  return (
    <dialog
      ref={ref}
      aria-labelledby="remove-title"
      aria-busy={busy}
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) props.onClose(false);
      }}
    >
      <h3 id="remove-title">Remove the price of {id}?</h3>
      <p>
        Every record this project holds for <span class="mono">{id}</span> goes. New spans of the
        model are then priced at the shipped default, or at the unknown-model price (marked
        estimated) when there is none. Costs already stored stay as they are.
      </p>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="button" class="danger" disabled={busy} onClick={() => void remove()}>
          {busy ? 'Removing…' : 'Remove'}
        </button>
        <button type="button" disabled={busy} onClick={() => props.onClose(false)}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
