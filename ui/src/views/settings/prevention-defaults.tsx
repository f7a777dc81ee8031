import { useState } from 'preact/hooks';
import { mutate } from '../../graphql/client.ts';
import { useQuery } from '../../graphql/hooks.ts';
import { param } from '../../router.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { FormErrorBox, formError, type FormError } from './form-errors.tsx';
import {
  PREVENTION_DEFAULT,
  RESET_PREVENTION_DEFAULT,
  SET_PREVENTION_DEFAULT,
  type PreventionConfig,
  type PreventionValues,
} from './instance-queries.ts';

interface FieldDef {
  name: keyof PreventionValues;
  /** The API's name, as validation issues give it. */
  api: string;
  label: string;
  kind: 'bool' | 'int' | 'number' | 'action';
  /** Empty means no limit. */
  nullable?: boolean;
}

const GROUPS: [string, FieldDef[]][] = [
  [
    'Loop detection',
    [
      { name: 'loopEnabled', api: 'loop_enabled', label: 'Detect loops', kind: 'bool' },
      { name: 'loopThreshold', api: 'loop_threshold', label: 'Repeats to flag', kind: 'int' },
      { name: 'loopAction', api: 'loop_action', label: 'On a loop', kind: 'action' },
    ],
  ],
  [
    'Budget (empty: no limit)',
    [
      { name: 'maxSteps', api: 'max_steps', label: 'Max steps', kind: 'int', nullable: true },
      {
        name: 'maxCostUsd',
        api: 'max_cost_usd',
        label: 'Max cost (USD)',
        kind: 'number',
        nullable: true,
      },
      {
        name: 'maxWallTimeS',
        api: 'max_wall_time_s',
        label: 'Max wall time (s)',
        kind: 'number',
        nullable: true,
      },
      {
        name: 'budgetSoftAlert',
        api: 'budget_soft_alert',
        label: 'Soft alert (fraction below 1, or USD below the max cost)',
        kind: 'number',
        nullable: true,
      },
    ],
  ],
  [
    'Circuit breaker',
    [
      { name: 'cbEnabled', api: 'cb_enabled', label: 'Enable the breaker', kind: 'bool' },
      {
        name: 'cbFailureThreshold',
        api: 'cb_failure_threshold',
        label: 'Failures to open',
        kind: 'int',
      },
      {
        name: 'cbCooldownSeconds',
        api: 'cb_cooldown_seconds',
        label: 'Cooldown (s)',
        kind: 'number',
      },
      {
        name: 'cbHalfOpenMaxCalls',
        api: 'cb_half_open_max_calls',
        label: 'Trial calls when half open',
        kind: 'int',
      },
    ],
  ],
];

/** The form's values as PreventionConfigInput: empty number fields are null (no limit). */
function readForm(form: HTMLFormElement): PreventionValues {
  const f = new FormData(form);
  const out: Record<string, unknown> = {};
  for (const [, fields] of GROUPS)
    for (const d of fields) {
      const raw = String(f.get(d.name) ?? '').trim();
      out[d.name] =
        d.kind === 'bool'
          ? f.get(d.name) === 'on'
          : d.kind === 'action'
            ? raw
            : raw === ''
              ? null
              : Number(raw);
    }
  return out as unknown as PreventionValues;
}

/**
 * The project default prevention config (docs/prevention.md) of the project in the URL (else the
 * key's, else `default`): what every agent without its own override gets. Admins save it whole
 * (setPreventionConfig) or reset it to the built-in defaults.
 */
export function PreventionDefaults() {
  const project = param('project') || null;
  const q = useQuery<{ preventionConfig: PreventionConfig }>(PREVENTION_DEFAULT, {
    projectId: project,
  });
  const [saved, setSaved] = useState<{ config: PreventionConfig; what: string } | null>(null);
  const [error, setError] = useState<FormError | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);

  if (q.error && !q.data) return <ErrorState error={q.error} retry={q.refetch} />;
  const current = saved?.config ?? q.data?.preventionConfig;
  if (!current) return <Loading what="the prevention defaults" />;

  const run = async (what: string, op: () => Promise<PreventionConfig>) => {
    setBusy(true);
    setError(null);
    setSaved(null);
    try {
      setSaved({ config: await op(), what });
    } catch (err) {
      setError(formError(err));
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  const save = (e: Event) => {
    e.preventDefault();
    const input = readForm(e.currentTarget as HTMLFormElement);
    void run('Saved', async () => {
      const d = await mutate<{ setPreventionConfig: PreventionConfig }>(SET_PREVENTION_DEFAULT, {
        projectId: project,
        input,
      });
      return d.setPreventionConfig;
    });
  };
  const reset = () =>
    run('Reset to the built-in defaults', async () => {
      const d = await mutate<{ deletePreventionConfig: PreventionConfig }>(
        RESET_PREVENTION_DEFAULT,
        { projectId: project },
      );
      return d.deletePreventionConfig;
    });

  return (
    <section aria-labelledby="prevention-title" class="instance-section">
      <h2 id="prevention-title">Prevention defaults</h2>
      <p class="muted">
        Project <code>{current.projectId}</code>:{' '}
        {current.source === 'project' ? (
          <>
            its saved default
            {current.updatedAt && (
              <>
                , updated <Time value={current.updatedAt} />
              </>
            )}
            .
          </>
        ) : (
          'nothing saved, the built-in defaults apply.'
        )}{' '}
        Agents without their own override (set on the agent's page) get these.
      </p>
      <form
        class="prevention-form"
        aria-labelledby="prevention-title"
        aria-describedby={error ? 'prevention-error' : undefined}
        key={`${current.projectId}/${current.updatedAt ?? 'default'}`}
        onSubmit={save}
        noValidate
      >
        {GROUPS.map(([legend, fields]) => (
          <fieldset key={legend}>
            <legend>{legend}</legend>
            {fields.map((d) => (
              <Field key={d.name} def={d} value={current[d.name]} problem={error?.fields[d.api]} />
            ))}
          </fieldset>
        ))}
        {error && <FormErrorBox error={error} id="prevention-error" />}
        <div class="form-actions">
          <button class="primary" type="submit" disabled={busy} aria-busy={busy}>
            {busy ? 'Saving…' : 'Save prevention defaults'}
          </button>
          {current.source === 'project' && !confirming && (
            <button type="button" disabled={busy} onClick={() => setConfirming(true)}>
              Reset to built-in defaults…
            </button>
          )}
        </div>
        {confirming && (
          <div class="confirm" role="group" aria-label="Confirm the reset">
            <p>
              Remove the saved default of project <code>{current.projectId}</code>? Agents without
              an override get the built-in defaults.
            </p>
            <button type="button" class="danger" disabled={busy} onClick={() => void reset()}>
              Reset
            </button>{' '}
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        )}
        {saved && (
          <p role="status" class="saved">
            {saved.what}: the prevention defaults of project <code>{saved.config.projectId}</code>.
          </p>
        )}
      </form>
    </section>
  );
}

function Field({
  def: d,
  value,
  problem,
}: {
  def: FieldDef;
  value: PreventionValues[keyof PreventionValues];
  problem: string | undefined;
}) {
  const id = `pv-${d.name}`;
  const a11y = {
    id,
    name: d.name,
    'aria-invalid': problem ? true : undefined,
    'aria-describedby': problem ? `${id}-problem` : undefined,
  };
  return (
    <div class={d.kind === 'bool' ? 'field check' : 'field'}>
      {d.kind === 'bool' ? (
        <input type="checkbox" defaultChecked={value === true} {...a11y} />
      ) : null}
      <label for={id}>{d.label}</label>
      {d.kind === 'action' ? (
        <select defaultValue={String(value)} {...a11y}>
          <option value="warn">warn</option>
          <option value="terminate">terminate</option>
        </select>
      ) : d.kind !== 'bool' ? (
        <input
          type="number"
          step={d.kind === 'int' ? 1 : 'any'}
          defaultValue={value === null ? '' : String(value)}
          placeholder={d.nullable ? 'no limit' : undefined}
          {...a11y}
        />
      ) : null}
      {problem && (
        <span class="field-problem" id={`${id}-problem`}>
          {problem}
        </span>
      )}
    </div>
  );
}
