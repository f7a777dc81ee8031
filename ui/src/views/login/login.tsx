import { useState } from 'preact/hooks';
import { describeError, mutate, type ReadableError } from '../../graphql/client.ts';
import { loadViewer } from '../../shell/session.ts';
import { LOGIN, LOGIN_WITH_API_KEY } from './queries.ts';

/**
 * Sign in with a user's e-mail and password, or with an API key. Either creates a server-side
 * session held in an httpOnly cookie (docs/ui.md#auth); the key is not kept by the page.
 */
export function Login() {
  const [mode, setMode] = useState<'user' | 'key'>('user');
  const [error, setError] = useState<ReadableError | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(null);
    try {
      if (mode === 'user')
        await mutate(LOGIN, {
          email: String(form.get('email')),
          password: String(form.get('password')),
        });
      else await mutate(LOGIN_WITH_API_KEY, { key: String(form.get('key')) });
      await loadViewer();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <h1>Sign in to Spyglass</h1>
      <form onSubmit={submit}>
        <fieldset>
          <legend class="muted">Sign in with</legend>
          <label>
            <input
              type="radio"
              name="mode"
              checked={mode === 'user'}
              onChange={() => setMode('user')}
            />{' '}
            E-mail and password
          </label>
          <label>
            <input
              type="radio"
              name="mode"
              checked={mode === 'key'}
              onChange={() => setMode('key')}
            />{' '}
            API key
          </label>
        </fieldset>
        {mode === 'user' ? (
          <>
            <label for="email">E-mail</label>
            <input id="email" name="email" type="email" autocomplete="username" required />
            <label for="password">Password</label>
            <input
              id="password"
              name="password"
              type="password"
              autocomplete="current-password"
              required
            />
          </>
        ) : (
          <>
            <label for="key">API key</label>
            <input id="key" name="key" type="password" autocomplete="off" required />
          </>
        )}
        <button class="primary" type="submit" disabled={busy}>
          Sign in
        </button>
        {error && (
          <p role="alert" class="bad">
            {error.message}
          </p>
        )}
      </form>
    </main>
  );
}
