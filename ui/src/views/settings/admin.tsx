import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { CombinedError } from '@urql/core';
import { describeError } from '../../graphql/client.ts';
import { param, setParams } from '../../router.ts';
import { isAdmin } from '../../shell/session.ts';
import { SettingsNav } from './settings-nav.tsx';
import './settings.css';

/**
 * The frame of the admin settings pages: the sections' navigation, then the page for admins, or
 * a plain "admins only" notice for anyone else (the server refuses their queries anyway).
 */
export function AdminPage({ children }: { children: ComponentChildren }) {
  if (!isAdmin())
    return (
      <section class="admins-only" role="alert">
        <h2>Admins only</h2>
        <p>
          Settings are for admins. You are signed in with the viewer role; ask an admin if you need
          a change here.
        </p>
      </section>
    );
  return (
    <div class="settings">
      <SettingsNav />
      {children}
    </div>
  );
}

/** A mutation's failure in words: the server's message, its field issues, and its code. */
export function errorText(err: unknown): string {
  const e = describeError(err);
  const issues =
    err instanceof CombinedError
      ? ((err.graphQLErrors[0]?.extensions?.issues as { loc?: unknown[]; msg?: string }[]) ?? [])
      : [];
  const details = issues
    .map((i) => `${String(i.loc?.at(-1) ?? '')}: ${String(i.msg ?? '')}`)
    .join('; ');
  return `${e.message}${details ? ` (${details})` : ''} [${e.code}]`;
}

/** The error of the form or row beside it, announced when it appears. */
export function FormError({ error }: { error: string | null }) {
  return error ? (
    <p class="form-error" role="alert">
      {error}
    </p>
  ) : null;
}

/**
 * A secret the server answers once (an API key, an invitation token): shown here with a copy
 * button and the warning that it will not be shown again. It lives only in this component's
 * state, so leaving or reloading the page forgets it.
 */
export function ShownOnce(props: {
  label: string;
  value: string;
  onDone: () => void;
  children?: ComponentChildren;
}) {
  const [copied, setCopied] = useState<string>('');
  const copy = () =>
    navigator.clipboard.writeText(props.value).then(
      () => setCopied('Copied.'),
      () => setCopied('Could not copy: select the text and copy it.'),
    );
  return (
    <section class="shown-once" aria-labelledby="shown-once-h">
      <h2 id="shown-once-h">{props.label}</h2>
      <p>
        <strong>It will not be shown again:</strong> copy it now and keep it somewhere safe.
      </p>
      <p class="secret">
        <code data-testid="secret">{props.value}</code>
      </p>
      {props.children}
      <p>
        <button type="button" onClick={copy}>
          Copy
        </button>{' '}
        <span role="status">{copied}</span>{' '}
        <button type="button" onClick={props.onDone}>
          Done
        </button>
      </p>
    </section>
  );
}

/** Runs one mutation at a time for a form or row: busy while it runs, its error in words. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (fn: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await fn();
      return true;
    } catch (err) {
      setError(errorText(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(null) };
}

/** Paging of a connection through `?after=` (50 rows a page keep the query under the cost limit). */
export function Pager(props: { hasNext: boolean; endCursor: string | null; what: string }) {
  const after = param('after');
  if (!after && !props.hasNext) return null;
  return (
    <p class="pager">
      {after && (
        <button type="button" onClick={() => setParams({ after: null })}>
          First page
        </button>
      )}{' '}
      {props.hasNext && props.endCursor && (
        <button type="button" onClick={() => setParams({ after: props.endCursor }, { push: true })}>
          Next 50 {props.what}
        </button>
      )}
    </p>
  );
}
