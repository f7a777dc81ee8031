import { CombinedError } from '@urql/core';
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from '../../graphql/client.ts';
import type { SloFields } from './queries.ts';

type Field = 'agentName' | 'metric' | 'threshold' | 'windowHours';
/** The server names fields as REST does (docs/slos.md#rest). */
const LOC: Record<string, Field> = {
  agent_name: 'agentName',
  metric: 'metric',
  threshold: 'threshold',
  window_hours: 'windowHours',
};

interface Failure {
  message: string;
  code: string;
  /** Per field, the server's validation message. */
  fields: Partial<Record<Field, string>>;
}

/** The server's refusal: its message and, for a validation error, what it says of each field. */
function failure(err: unknown): Failure {
  const d = describeError(err);
  const fields: Failure['fields'] = {};
  const issues =
    err instanceof CombinedError ? err.graphQLErrors[0]?.extensions?.issues : undefined;
  if (Array.isArray(issues))
    for (const i of issues as { loc?: unknown[]; msg?: string }[]) {
      const f = LOC[String(i.loc?.at(-1))];
      if (f && i.msg) fields[f] = i.msg;
    }
  return { message: d.message, code: d.code, fields };
}

/**
 * The create or edit form of an SLO (admins). The server validates (docs/slos.md#rest); its
 * message shows above the form and each field's issue under that field.
 */
export function SloForm(props: {
  id: string;
  legend: string;
  submit: string;
  initial?: SloFields;
  onSave: (fields: SloFields) => Promise<void>;
  onCancel?: () => void;
  /** Focus the first field when shown (the edit form opened by a button). */
  focus?: boolean;
}) {
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (props.focus) form.current?.querySelector('input')?.focus();
  }, []);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Failure | null>(null);
  const init = props.initial;
  const fieldError = (f: Field) =>
    error?.fields[f] ? (
      <span class="field-error" id={`${props.id}-${f}-error`}>
        {error.fields[f]}
      </span>
    ) : null;
  const invalid = (f: Field) =>
    error?.fields[f]
      ? { 'aria-invalid': true as const, 'aria-describedby': `${props.id}-${f}-error` }
      : {};
  return (
    <form
      ref={form}
      class="slo-form"
      aria-busy={busy}
      onSubmit={(e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        const fields: SloFields = {
          agentName: String(f.get('agentName') ?? ''),
          metric: String(f.get('metric') ?? ''),
          threshold: Number(f.get('threshold')),
          windowHours: Number(f.get('windowHours')),
        };
        setBusy(true);
        setError(null);
        props.onSave(fields).then(
          () => setBusy(false),
          (err: unknown) => {
            setBusy(false);
            setError(failure(err));
          },
        );
      }}
    >
      <fieldset disabled={busy}>
        <legend>{props.legend}</legend>
        {error && (
          <p class="form-error" role="alert">
            {error.message} <code>{error.code}</code>
          </p>
        )}
        <label>
          Agent
          <input
            name="agentName"
            required
            defaultValue={init?.agentName}
            {...invalid('agentName')}
          />
          {fieldError('agentName')}
        </label>
        <label>
          Metric
          <select
            name="metric"
            defaultValue={init?.metric ?? 'success_rate'}
            {...invalid('metric')}
          >
            <option value="success_rate">success rate (%)</option>
            <option value="latency_p99">p99 session duration (ms)</option>
          </select>
          {fieldError('metric')}
        </label>
        <label>
          Target
          <input
            name="threshold"
            type="number"
            step="any"
            required
            defaultValue={init ? String(init.threshold) : ''}
            {...invalid('threshold')}
          />
          {fieldError('threshold')}
        </label>
        <label>
          Window (hours)
          <input
            name="windowHours"
            type="number"
            step="1"
            required
            defaultValue={String(init?.windowHours ?? 24)}
            {...invalid('windowHours')}
          />
          {fieldError('windowHours')}
        </label>
        <div class="form-actions">
          <button type="submit" class="primary">
            {busy ? 'Saving…' : props.submit}
          </button>
          {props.onCancel && (
            <button type="button" onClick={props.onCancel}>
              Cancel
            </button>
          )}
        </div>
      </fieldset>
    </form>
  );
}
