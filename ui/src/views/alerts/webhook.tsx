import { CombinedError } from '@urql/core';
import { useState } from 'preact/hooks';
import { describeError, mutate } from '../../graphql/client.ts';
import { SAVE_ALERT_CONFIG, TEST_WEBHOOK, type AlertConfigData } from './queries.ts';

interface Props {
  config: AlertConfigData;
  project: string;
  admin: boolean;
  onSaved: (c: AlertConfigData) => void;
}

/** The server's own words: a validation error's issues (the outbound URL policy's refusal), else its message. */
export function serverMessage(err: unknown): string {
  if (err instanceof CombinedError) {
    const issues = err.graphQLErrors[0]?.extensions?.issues as { msg?: string }[] | undefined;
    const msgs = issues?.map((i) => i.msg).filter(Boolean) ?? [];
    if (msgs.length) return msgs.join('; ');
  }
  return describeError(err).message;
}

type Outcome = { ok: boolean; text: string } | null;

/**
 * The chat webhook: shown masked (it is a secret), replaced or removed by admins, and a test
 * message whose delivery result (delivered, or the error: the URL policy's refusal, an HTTP status)
 * shows when it is done. The outbound URL policy is the server's; its refusal is shown as sent.
 */
export function WebhookForm({ config, project, admin, onSaved }: Props) {
  const [busy, setBusy] = useState<'' | 'save' | 'remove' | 'test'>('');
  const [saved, setSaved] = useState<Outcome>(null);
  const [tested, setTested] = useState<Outcome>(null);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const vars = { projectId: project || null };

  const save = async (url: string, what: 'save' | 'remove') => {
    setBusy(what);
    setSaved(null);
    try {
      const d = await mutate<{ saveAlertConfig: AlertConfigData }>(SAVE_ALERT_CONFIG, {
        ...vars,
        chatWebhook: url,
      });
      onSaved(d.saveAlertConfig);
      setSaved({ ok: true, text: what === 'save' ? 'Webhook saved.' : 'Webhook removed.' });
      setConfirmRemove(false);
    } catch (err) {
      setSaved({ ok: false, text: serverMessage(err) });
    } finally {
      setBusy('');
    }
  };
  const test = async () => {
    setBusy('test');
    setTested(null);
    try {
      const d = await mutate<{ testAlertWebhook: { ok: boolean; error: string | null } }>(
        TEST_WEBHOOK,
        vars,
      );
      const r = d.testAlertWebhook;
      setTested(
        r.ok
          ? { ok: true, text: 'Delivered: the webhook accepted the test message.' }
          : { ok: false, text: `Not delivered: ${r.error ?? 'the webhook failed'}` },
      );
    } catch (err) {
      setTested({ ok: false, text: `Not delivered: ${serverMessage(err)}` });
    } finally {
      setBusy('');
    }
  };

  return (
    <div class="alert-webhook">
      <h3>Chat webhook</h3>
      <p>
        {config.chatWebhookConfigured ? (
          <>
            Current: <code>{config.chatWebhookMasked}</code>
            {config.chatWebhookSource && <> (from {config.chatWebhookSource})</>}
          </>
        ) : (
          'No webhook configured: alerts stay in the inbox only.'
        )}
      </p>
      {admin && (
        <form
          aria-busy={busy === 'save'}
          onSubmit={(e) => {
            e.preventDefault();
            const url = String(new FormData(e.currentTarget).get('webhook') ?? '').trim();
            if (url) void save(url, 'save');
          }}
        >
          <label>
            New webhook URL{' '}
            <input name="webhook" type="url" required placeholder="https://hooks.example.com/…" />
          </label>{' '}
          <button type="submit" disabled={busy !== ''}>
            Save webhook
          </button>{' '}
          {config.chatWebhookSource === 'settings' &&
            (confirmRemove ? (
              <span class="confirm">
                Remove the saved webhook?{' '}
                <button
                  type="button"
                  class="danger"
                  disabled={busy !== ''}
                  onClick={() => void save('', 'remove')}
                >
                  Confirm remove
                </button>{' '}
                <button type="button" onClick={() => setConfirmRemove(false)}>
                  Cancel
                </button>
              </span>
            ) : (
              <button type="button" disabled={busy !== ''} onClick={() => setConfirmRemove(true)}>
                Remove webhook…
              </button>
            ))}
          {saved && (
            <p class={saved.ok ? 'ok' : 'bad'} role={saved.ok ? 'status' : 'alert'}>
              {saved.text}
            </p>
          )}
        </form>
      )}
      {admin && (
        <p>
          <button
            type="button"
            disabled={busy !== '' || !config.chatWebhookConfigured}
            aria-busy={busy === 'test'}
            onClick={() => void test()}
          >
            {busy === 'test' ? 'Sending test message…' : 'Send a test message'}
          </button>
        </p>
      )}
      <p
        role="status"
        class={tested ? (tested.ok ? 'ok' : 'bad') : undefined}
        data-testid="webhook-test-result"
      >
        {tested?.text ?? ''}
      </p>
    </div>
  );
}
