import { useState } from 'preact/hooks';
import { mutate } from '../../graphql/client.ts';
import { useQuery } from '../../graphql/hooks.ts';
import { isAdmin } from '../../shell/session.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import {
  CONFIG_FIELDS,
  formErrors,
  inputOf,
  showValue,
  type ConfigField,
  type FormErrors,
} from './prevention-fields.ts';
import { DELETE_PREVENTION, PREVENTION, SET_PREVENTION, type PreventionConfig } from './queries.ts';

const SOURCE: Record<PreventionConfig['source'], string> = {
  agent: 'agent override',
  project: 'project default',
  default: 'built-in defaults (nothing stored for the project)',
};

/**
 * The agent's effective prevention config (docs/prevention.md) and where it comes from. Admins
 * edit it (saved as the agent's override) and remove the override after confirming; viewers read.
 */
export function Prevention({ name, projectId }: { name: string; projectId: string | null }) {
  const q = useQuery<{ preventionConfig: PreventionConfig }>(PREVENTION, { name, projectId });
  const c = q.data?.preventionConfig;
  // Kept here: the editor is remounted with the config it reloads after a change.
  const [done, setDone] = useState('');
  return (
    <section aria-labelledby="prevention" class="prevention">
      <h2 id="prevention">Prevention config</h2>
      {q.error && <ErrorState error={q.error} retry={q.refetch} />}
      {!c && !q.error && <Loading what="the prevention config" />}
      {c && (
        <>
          <p>
            Source: <strong data-testid="prevention-source">{SOURCE[c.source]}</strong>
            {' · project '}
            <code>{c.projectId}</code>
            {c.updatedAt && (
              <>
                {' · updated '}
                <Time value={c.updatedAt} />
              </>
            )}
          </p>
          {isAdmin() ? (
            <Editor
              key={`${c.id}:${c.updatedAt}`}
              config={c}
              name={name}
              reload={q.refetch}
              done={done}
              setDone={setDone}
            />
          ) : (
            <ReadOnly config={c} />
          )}
        </>
      )}
    </section>
  );
}

function ReadOnly({ config }: { config: PreventionConfig }) {
  return (
    <table class="data prevention-values">
      <caption class="visually-hidden">Effective prevention config</caption>
      <tbody>
        {CONFIG_FIELDS.map((f) => (
          <tr key={f.key}>
            <th scope="row">{f.label}</th>
            <td>{showValue(f, config[f.key])}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

type Busy = null | 'save' | 'remove';

interface EditorProps {
  config: PreventionConfig;
  name: string;
  reload: () => void;
  /** The last action's result, shown until the next one. */
  done: string;
  setDone: (s: string) => void;
}

function Editor(props: EditorProps) {
  const { config, name, done, setDone } = props;
  const [busy, setBusy] = useState<Busy>(null);
  const [errors, setErrors] = useState<FormErrors | null>(null);
  const [confirming, setConfirming] = useState(false);
  const vars = { name, projectId: config.projectId };

  const run = async (what: Busy, op: () => Promise<unknown>, result: string) => {
    setBusy(what);
    setErrors(null);
    setDone('');
    try {
      await op();
      setDone(result);
      props.reload();
    } catch (err) {
      setErrors(formErrors(err));
    } finally {
      setBusy(null);
      setConfirming(false);
    }
  };

  return (
    <form
      class="prevention-form"
      data-admin
      noValidate
      aria-busy={busy !== null}
      aria-describedby={errors ? 'prevention-errors' : undefined}
      onSubmit={(e) => {
        e.preventDefault();
        const input = inputOf(new FormData(e.currentTarget));
        void run('save', () => mutate(SET_PREVENTION, { ...vars, input }), 'Saved as override.');
      }}
    >
      {errors && (
        <div id="prevention-errors" class="form-errors" role="alert">
          <p>Not saved: {errors.message}</p>
        </div>
      )}
      <div class="fields">
        {CONFIG_FIELDS.map((f) => (
          <FieldInput key={f.key} field={f} config={config} error={errors?.fields[f.key]} />
        ))}
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy !== null}>
          {busy === 'save' ? 'Saving…' : 'Save as override'}
        </button>
        {config.source === 'agent' && !confirming && (
          <button type="button" disabled={busy !== null} onClick={() => setConfirming(true)}>
            Remove override
          </button>
        )}
        <span role="status" aria-live="polite">
          {done}
        </span>
      </div>
      {confirming && (
        <div class="confirm" role="group" aria-labelledby="confirm-remove">
          <p id="confirm-remove">
            Remove the override of <strong>{name}</strong>? The agent goes back to the project
            default.
          </p>
          <button
            type="button"
            class="danger"
            disabled={busy !== null}
            onClick={() =>
              void run(
                'remove',
                () => mutate(DELETE_PREVENTION, vars),
                'Override removed: the project default applies.',
              )
            }
          >
            {busy === 'remove' ? 'Removing…' : 'Yes, remove the override'}
          </button>
          <button type="button" disabled={busy !== null} onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      )}
    </form>
  );
}

function FieldInput(props: { field: ConfigField; config: PreventionConfig; error?: string }) {
  const { field: f, config, error } = props;
  const id = `pc-${f.key}`;
  const described = [f.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean);
  const common = {
    id,
    name: f.key,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': described.length ? described.join(' ') : undefined,
  };
  const value = config[f.key];
  let input;
  if (f.kind === 'bool')
    input = <input type="checkbox" {...common} defaultChecked={value === true} />;
  else if (f.kind === 'action')
    input = (
      <select {...common} defaultValue={String(value)}>
        <option value="warn">warn</option>
        <option value="terminate">terminate</option>
      </select>
    );
  else
    input = (
      <input
        type="number"
        {...common}
        step={f.kind === 'int' ? 1 : 'any'}
        placeholder={f.nullable ? 'no limit' : undefined}
        defaultValue={value === null ? '' : String(value)}
      />
    );
  return (
    <div class={f.kind === 'bool' ? 'field check' : 'field'}>
      <label for={id}>{f.label}</label>
      {input}
      {f.hint && (
        <small id={`${id}-hint`} class="muted">
          {f.hint}
        </small>
      )}
      {error && (
        <small id={`${id}-error`} class="field-error">
          {error}
        </small>
      )}
    </div>
  );
}
