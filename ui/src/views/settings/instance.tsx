import { useState } from 'preact/hooks';
import { mutate } from '../../graphql/client.ts';
import { useQuery } from '../../graphql/hooks.ts';
import type { PageProps } from '../../pages.ts';
import { viewer } from '../../shell/session.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { AdminsOnly } from './admins-only.tsx';
import { FormErrorBox, formError, type FormError } from './form-errors.tsx';
import { SETTINGS, UPDATE_SETTINGS, type SettingsData } from './instance-queries.ts';
import { PreventionDefaults } from './prevention-defaults.tsx';
import { SettingsNav } from './settings-nav.tsx';
import './instance.css';

/** `/settings/instance`: instance settings and the project's prevention defaults (admins). */
export default function SettingsInstance(_props: PageProps) {
  return (
    <>
      <SettingsNav />
      <AdminsOnly what="Instance settings">
        <div class="instance">
          <InstanceSettings />
          <PreventionDefaults />
        </div>
      </AdminsOnly>
    </>
  );
}

/**
 * The settings of the whole instance (`settings` / `updateSettings`): payload redaction. Only an
 * admin bound to no project may change them; the server says so to others, shown beside the form.
 */
function InstanceSettings() {
  const q = useQuery<SettingsData>(SETTINGS);
  const [saved, setSaved] = useState<SettingsData['settings'] | null>(null);
  const [error, setError] = useState<FormError | null>(null);
  const [busy, setBusy] = useState(false);

  if (q.error && !q.data) return <ErrorState error={q.error} retry={q.refetch} />;
  const current = saved ?? q.data?.settings;
  if (!current) return <Loading what="the instance settings" />;
  // A project-bound admin reads them but cannot change them (the server refuses it too).
  const bound = viewer.value?.projectId ?? null;

  const save = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(null);
    setSaved(null);
    try {
      const d = await mutate<{ updateSettings: SettingsData['settings'] }>(UPDATE_SETTINGS, {
        redactPayloads: f.get('redactPayloads') === 'on',
      });
      setSaved(d.updateSettings);
    } catch (err) {
      setError(formError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="instance-title" class="instance-section">
      <h2 id="instance-title">Instance settings</h2>
      <form
        aria-labelledby="instance-title"
        aria-describedby={error ? 'instance-error' : undefined}
        onSubmit={(e) => void save(e)}
        key={String(current.redactPayloads)}
      >
        <div class="field check">
          <input
            type="checkbox"
            id="redact-payloads"
            name="redactPayloads"
            defaultChecked={current.redactPayloads}
            disabled={bound !== null}
            aria-describedby="redact-help"
          />
          <label for="redact-payloads">Redact payloads</label>
        </div>
        <p id="redact-help" class="muted">
          Drops tool inputs and outputs (and LLM prompts and completions) from spans as they are
          ingested; spans already stored keep theirs. Currently{' '}
          <strong>{current.redactPayloads ? 'on' : 'off'}</strong>.
        </p>
        {error && <FormErrorBox error={error} id="instance-error" />}
        {bound !== null ? (
          <p>
            Your key is bound to project <code>{bound}</code>: only an admin bound to no project
            changes instance settings.
          </p>
        ) : (
          <div class="form-actions">
            <button class="primary" type="submit" disabled={busy} aria-busy={busy}>
              {busy ? 'Saving…' : 'Save instance settings'}
            </button>
          </div>
        )}
        {saved && (
          <p role="status" class="saved">
            Saved: payload redaction is {saved.redactPayloads ? 'on' : 'off'}.
          </p>
        )}
      </form>
    </section>
  );
}
