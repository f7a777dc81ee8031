import { useEffect, useState } from 'preact/hooks';
import { mutate } from '../../graphql/client.ts';
import { useQuery } from '../../graphql/hooks.ts';
import { isAdmin } from '../../shell/session.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { ALERT_CONFIG, SAVE_ALERT_CONFIG, type AlertConfigData } from './queries.ts';
import { serverMessage, WebhookForm } from './webhook.tsx';

/**
 * Alert configuration: chat delivery per alert type and the chat webhook. Everyone may read it;
 * only admins change it (the controls are disabled for others; the server refuses them anyway).
 */
export function AlertConfigSection({ project }: { project: string }) {
  const q = useQuery<{ alertConfig: AlertConfigData }>(ALERT_CONFIG, {
    projectId: project || null,
  });
  const [config, setConfig] = useState<AlertConfigData | undefined>(undefined);
  useEffect(() => setConfig(q.data?.alertConfig), [q.data]);
  const admin = isAdmin();
  return (
    <section class="alert-config" aria-labelledby="alert-config-title">
      <h2 id="alert-config-title">Configuration</h2>
      {!admin && <p class="muted">Only admins can change the alert configuration.</p>}
      {q.error && <ErrorState error={q.error} retry={q.refetch} />}
      {!config && q.fetching && <Loading what="the alert configuration" />}
      {config && (
        <>
          <Toggles config={config} project={project} admin={admin} onSaved={setConfig} />
          <WebhookForm config={config} project={project} admin={admin} onSaved={setConfig} />
        </>
      )}
    </section>
  );
}

interface PartProps {
  config: AlertConfigData;
  project: string;
  admin: boolean;
  onSaved: (c: AlertConfigData) => void;
}

/** Which alert types go to the chat webhook (the inbox keeps every alert whatever the toggle). */
function Toggles({ config, project, admin, onSaved }: PartProps) {
  const [draft, setDraft] = useState(config.alertTypes);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  useEffect(() => setDraft(config.alertTypes), [config]);
  const changed = Object.entries(draft).filter(([t, on]) => config.alertTypes[t] !== on);
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setResult(null);
    try {
      const d = await mutate<{ saveAlertConfig: AlertConfigData }>(SAVE_ALERT_CONFIG, {
        projectId: project || null,
        alertTypes: Object.fromEntries(changed),
      });
      onSaved(d.saveAlertConfig);
      setResult({ ok: true, text: 'Saved.' });
    } catch (err) {
      setResult({ ok: false, text: serverMessage(err) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="alert-toggles" onSubmit={(e) => void save(e)} aria-busy={busy}>
      <fieldset>
        <legend>Send to chat, by alert type</legend>
        {Object.entries(draft).map(([t, on]) => (
          <label key={t}>
            <input
              type="checkbox"
              name={t}
              checked={on}
              disabled={!admin || busy}
              onChange={(e) => setDraft({ ...draft, [t]: e.currentTarget.checked })}
            />{' '}
            <code>{t}</code>
          </label>
        ))}
      </fieldset>
      {admin && (
        <button type="submit" disabled={busy || changed.length === 0}>
          Save alert types
        </button>
      )}
      {result && (
        <p class={result.ok ? 'ok' : 'bad'} role={result.ok ? 'status' : 'alert'}>
          {result.text}
        </p>
      )}
    </form>
  );
}
