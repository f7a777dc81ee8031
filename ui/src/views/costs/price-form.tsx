import { CombinedError } from '@urql/core';
import { useState } from 'preact/hooks';
import { describeError, mutate } from '../../graphql/client.ts';
import { ADD_PRICE, UPDATE_PRICE, type Price, type PriceInput } from './queries.ts';

interface FormError {
  message: string;
  /** The server's validation issues, "field: message". */
  issues: string[];
}

/** The server's message and its validation issues (extensions.issues), to show next to a form. */
export function formError(err: unknown): FormError {
  const g = err instanceof CombinedError ? err.graphQLErrors[0] : undefined;
  const raw = g?.extensions?.issues;
  const issues = Array.isArray(raw)
    ? raw.map((i: { loc?: unknown[]; msg?: unknown }) => {
        const field = Array.isArray(i.loc) ? String(i.loc.at(-1) ?? '') : '';
        return `${field ? `${field}: ` : ''}${String(i.msg ?? '')}`;
      })
    : [];
  return { message: describeError(err).message, issues };
}

/** A datetime-local value as an ISO instant; empty means now (the server's default). */
function instant(v: string): string | undefined {
  if (!v) return undefined;
  const d = new Date(v);
  // An unparseable date goes to the server as is, so its validation names the field.
  return Number.isNaN(d.getTime()) ? v : d.toISOString();
}

/** A number field: empty is absent (undefined) or, for cache prices, cleared (null). */
function price(v: FormDataEntryValue | null, emptyIs: undefined | null): number | undefined | null {
  const s = String(v ?? '').trim();
  return s === '' ? emptyIs : Number(s);
}

/**
 * Adds a model's price, or changes one (`editing`): a new record from its effective date, stored
 * span costs never rewritten. A shipped default is changed by adding the project's own record.
 * Admins only (the page hides it from others; the server refuses them anyway).
 */
export function PriceForm(props: {
  projectId: string | null;
  editing: Price | null;
  onDone: (modelId: string) => void;
  onCancel: () => void;
}) {
  const e = props.editing;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<FormError | null>(null);
  const submit = async (ev: Event) => {
    ev.preventDefault();
    const f = new FormData(ev.currentTarget as HTMLFormElement);
    const modelId = e ? e.modelId : String(f.get('modelId') ?? '');
    const input: PriceInput = {
      provider: String(f.get('provider') ?? '').trim() || undefined,
      inputPer1mUsd: price(f.get('input'), undefined) as number | undefined,
      outputPer1mUsd: price(f.get('output'), undefined) as number | undefined,
      cacheReadPer1mUsd: price(f.get('cacheRead'), null),
      cacheWritePer1mUsd: price(f.get('cacheWrite'), null),
      effectiveFrom: instant(String(f.get('effectiveFrom') ?? '')),
    };
    setBusy(true);
    setError(null);
    try {
      const doc = e?.source === 'custom' ? UPDATE_PRICE : ADD_PRICE;
      await mutate(doc, { projectId: props.projectId, modelId, input });
      props.onDone(modelId);
    } catch (err) {
      setError(formError(err));
    } finally {
      setBusy(false);
    }
  };
  const title = e ? `Change the price of ${e.modelId}` : 'Add a model price';
  return (
    <form class="price-form" aria-label={title} aria-busy={busy} onSubmit={submit} noValidate>
      <h3>{title}</h3>
      <div class="fields">
        {!e && (
          <label>
            Model id <input name="modelId" required maxLength={200} autoComplete="off" />
          </label>
        )}
        <label>
          Provider <input name="provider" defaultValue={e?.provider ?? ''} autoComplete="off" />
        </label>
        <label>
          Input USD / 1M tokens
          <input name="input" type="number" step="any" defaultValue={num(e?.inputPer1mUsd)} />
        </label>
        <label>
          Output USD / 1M tokens
          <input name="output" type="number" step="any" defaultValue={num(e?.outputPer1mUsd)} />
        </label>
        <label>
          Cache read USD / 1M
          <input
            name="cacheRead"
            type="number"
            step="any"
            defaultValue={num(e?.cacheReadPer1mUsd)}
          />
        </label>
        <label>
          Cache write USD / 1M
          <input
            name="cacheWrite"
            type="number"
            step="any"
            defaultValue={num(e?.cacheWritePer1mUsd)}
          />
        </label>
        <label>
          Effective from (empty: now)
          <input name="effectiveFrom" type="datetime-local" />
        </label>
      </div>
      {error && (
        <div class="form-error" role="alert">
          <p>{error.message}</p>
          {error.issues.length > 0 && (
            <ul>
              {error.issues.map((i) => (
                <li key={i}>{i}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : e ? 'Save the new price' : 'Add price'}
        </button>
        <button type="button" onClick={props.onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}

const num = (v: number | null | undefined) => (v === null || v === undefined ? '' : String(v));
