import { CombinedError } from '@urql/core';
import { useState } from 'preact/hooks';
import { describeError, mutate } from '../../graphql/client.ts';
import { useQuery } from '../../graphql/hooks.ts';
import { isAdmin } from '../../shell/session.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { CATALOG_ENTRY, PUT_SERVER, type CatalogEntry } from './health-queries.ts';

type Vars = { name: string; projectId: string | null };

/** Form fields: the input's name, its label and the REST field the server's issues name. */
const FIELDS = [
  ['description', 'Description', 'description'],
  ['owner', 'Owner', 'owner'],
  ['tags', 'Tags (comma-separated)', 'tags'],
  ['runbookUrl', 'Runbook URL', 'runbook_url'],
  ['transport', 'Transport', 'transport'],
  ['url', 'URL', 'url'],
] as const;
const TRANSPORTS = ['', 'stdio', 'sse', 'streamable_http'];

interface Issue {
  loc?: (string | number)[];
  msg?: string;
}

/** The server's catalog entry (query `server`); admins edit it with putServer. */
export function CatalogSection({ vars }: { vars: Vars }) {
  const q = useQuery<{ server: CatalogEntry }>(CATALOG_ENTRY, vars);
  const [editing, setEditing] = useState(false);
  const missing = q.error?.code === 'NOT_FOUND';
  const entry = q.data?.server;
  return (
    <section aria-labelledby="h-catalog">
      <h3 id="h-catalog">Catalog entry</h3>
      {q.error && !missing && <ErrorState error={q.error} retry={q.refetch} />}
      {!q.data && !q.error && <Loading what="the catalog entry" />}
      {missing && <p class="muted">This server has no catalog entry yet.</p>}
      {entry && !editing && (
        <dl class="catalog-entry">
          <dt>Description</dt>
          <dd>{entry.description ?? '—'}</dd>
          <dt>Owner</dt>
          <dd>{entry.owner ?? '—'}</dd>
          <dt>Tags</dt>
          <dd>{entry.tags.length ? entry.tags.join(', ') : '—'}</dd>
          <dt>Runbook</dt>
          <dd>
            {entry.runbookUrl && /^https?:\/\//.test(entry.runbookUrl) ? (
              <a href={entry.runbookUrl} rel="noopener noreferrer" target="_blank">
                {entry.runbookUrl}
              </a>
            ) : (
              (entry.runbookUrl ?? '—')
            )}
          </dd>
          <dt>Transport</dt>
          <dd>{entry.transport ?? '—'}</dd>
          <dt>URL</dt>
          <dd class="mono">{entry.url ?? '—'}</dd>
          <dt>Source</dt>
          <dd>{entry.source}</dd>
          <dt>Updated</dt>
          <dd>
            <Time value={entry.updatedAt} />
          </dd>
        </dl>
      )}
      {isAdmin() && (entry || missing) && !editing && (
        <button type="button" data-admin onClick={() => setEditing(true)}>
          {entry ? 'Edit catalog entry' : 'Create catalog entry'}
        </button>
      )}
      {editing && (
        <EntryForm
          vars={vars}
          entry={entry}
          onDone={(saved) => {
            setEditing(false);
            if (saved) q.refetch();
          }}
        />
      )}
    </section>
  );
}

function EntryForm(p: {
  vars: Vars;
  entry: CatalogEntry | undefined;
  onDone: (saved: boolean) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; issues: Record<string, string> } | null>(
    null,
  );
  const value = (k: (typeof FIELDS)[number][0]) => {
    const v = p.entry?.[k];
    return Array.isArray(v) ? v.join(', ') : (v ?? '');
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    const text = (k: string) => String(f.get(k) ?? '').trim();
    const input = {
      description: text('description') || null,
      owner: text('owner') || null,
      runbookUrl: text('runbookUrl') || null,
      tags: text('tags')
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
      transport: text('transport') || null,
      url: text('url') || null,
    };
    setBusy(true);
    setError(null);
    try {
      await mutate(PUT_SERVER, { ...p.vars, input });
      p.onDone(true);
    } catch (err) {
      setError({ message: describeError(err).message, issues: issuesOf(err) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="catalog-form"
      aria-label="Edit catalog entry"
      aria-busy={busy ? 'true' : 'false'}
      onSubmit={(e) => void submit(e)}
    >
      {error && (
        <p role="alert" class="form-error">
          Not saved: {error.message}
        </p>
      )}
      {FIELDS.map(([k, label, rest]) => {
        const issue = error?.issues[rest];
        const id = `catalog-${k}`;
        return (
          <div class="field" key={k}>
            <label for={id}>{label}</label>
            {k === 'transport' ? (
              <select
                id={id}
                name={k}
                defaultValue={value(k)}
                aria-invalid={issue ? 'true' : undefined}
                aria-describedby={issue ? `${id}-err` : undefined}
              >
                {TRANSPORTS.map((t) => (
                  <option key={t} value={t}>
                    {t || '(none)'}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                name={k}
                defaultValue={value(k)}
                aria-invalid={issue ? 'true' : undefined}
                aria-describedby={issue ? `${id}-err` : undefined}
              />
            )}
            {issue && (
              <span id={`${id}-err`} class="form-error">
                {issue}
              </span>
            )}
          </div>
        );
      })}
      <div class="form-buttons">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" disabled={busy} onClick={() => p.onDone(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The server's validation issues by REST field name (`body.url` gives `url`). */
function issuesOf(err: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(err instanceof CombinedError)) return out;
  for (const g of err.graphQLErrors) {
    const issues = (g.extensions?.issues ?? []) as Issue[];
    for (const i of issues) {
      const field = i.loc?.[1];
      if (typeof field === 'string' && i.msg) out[field] = i.msg;
    }
  }
  return out;
}
