import { useState } from 'preact/hooks';
import { mutate } from '../../graphql/client.ts';
import { useQuery } from '../../graphql/hooks.ts';
import type { PageProps } from '../../pages.ts';
import { param, setParams } from '../../router.ts';
import { viewer } from '../../shell/session.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { AdminPage, FormError, Pager, ShownOnce, useAction } from './admin.tsx';
import {
  CREATE_API_KEY,
  REVOKE_API_KEY,
  SETTINGS_KEYS,
  type CreatedKeyData,
  type SettingsKey,
  type SettingsKeysData,
} from './keys-queries.ts';

/** #27 Settings: API keys (`/settings/keys`): list, create (the key shown once), revoke. */
export default function SettingsKeys(_props: PageProps) {
  return (
    <AdminPage>
      <Keys />
    </AdminPage>
  );
}

function Keys() {
  const revoked = param('revoked') === '1';
  const q = useQuery<SettingsKeysData>(SETTINGS_KEYS, {
    includeRevoked: revoked,
    after: param('after') || null,
  });
  const [created, setCreated] = useState<CreatedKeyData['createApiKey'] | null>(null);
  if (q.error) return <ErrorState error={q.error} retry={q.refetch} />;
  if (!q.data) return <Loading what="API keys" />;
  const keys = q.data.apiKeysConnection.edges.map((e) => e.node);
  return (
    <>
      {created ? (
        <ShownOnce
          label={`New API key "${created.apiKey.name}"`}
          value={created.key}
          onDone={() => setCreated(null)}
        >
          <p>
            Send it as the <code>X-API-Key</code> header. The list below shows only its prefix,{' '}
            <code>{created.apiKey.prefix}</code>.
          </p>
        </ShownOnce>
      ) : (
        <CreateKey
          projects={q.data.projects}
          onCreated={(c) => {
            setCreated(c);
            q.refetch();
          }}
        />
      )}
      <section aria-labelledby="keys-h">
        <h2 id="keys-h">API keys</h2>
        <label class="filter">
          <input
            type="checkbox"
            checked={revoked}
            onChange={(e) =>
              setParams({ revoked: e.currentTarget.checked ? '1' : null, after: null })
            }
          />{' '}
          Show revoked keys
        </label>
        {keys.length === 0 ? (
          <p class="muted">No API keys{revoked ? '' : ' in use'}.</p>
        ) : (
          <table class="data settings-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Role</th>
                <th scope="col">Project</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody aria-busy={q.fetching}>
              {keys.map((k) => (
                <KeyRow key={k.id} apiKey={k} onChanged={q.refetch} />
              ))}
            </tbody>
          </table>
        )}
        <Pager
          hasNext={q.data.apiKeysConnection.pageInfo.hasNextPage}
          endCursor={q.data.apiKeysConnection.pageInfo.endCursor}
          what="keys"
        />
      </section>
    </>
  );
}

function CreateKey(props: {
  projects: { id: string; name: string }[];
  onCreated: (c: CreatedKeyData['createApiKey']) => void;
}) {
  const action = useAction();
  // A project-bound admin's keys are bound to its project whatever it asks.
  const bound = viewer.value?.projectId ?? null;
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const days = String(f.get('days') ?? '').trim();
    let made: CreatedKeyData | undefined;
    const ok = await action.run(async () => {
      made = await mutate<CreatedKeyData>(CREATE_API_KEY, {
        input: {
          name: String(f.get('name') ?? ''),
          role: String(f.get('role') ?? 'viewer'),
          projectId: String(f.get('project') ?? '') || bound,
          expiresInDays: days ? Number(days) : null,
        },
      });
    });
    if (ok && made) {
      form.reset();
      props.onCreated(made.createApiKey);
    }
  };
  return (
    <section aria-labelledby="create-key-h" class="settings-form" data-admin>
      <h2 id="create-key-h">Create an API key</h2>
      <form onSubmit={submit} onInput={action.clear} aria-busy={action.busy}>
        <label>
          Name <input name="name" required maxLength={200} autocomplete="off" />
        </label>
        <label>
          Role{' '}
          <select name="role">
            <option value="viewer">viewer</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <label>
          Project{' '}
          <select name="project">
            {bound === null && <option value="">every project</option>}
            {props.projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name} ({p.id})
              </option>
            ))}
          </select>
        </label>
        <label>
          Expires in days (optional) <input name="days" type="number" min="1" step="any" />
        </label>
        <button class="primary" type="submit" disabled={action.busy}>
          {action.busy ? 'Creating…' : 'Create key'}
        </button>
      </form>
      <FormError error={action.error} />
    </section>
  );
}

function KeyRow({ apiKey: k, onChanged }: { apiKey: SettingsKey; onChanged: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  const self = viewer.value?.actor === `key:${k.prefix}`;
  const revoke = async () => {
    if (await action.run(() => mutate(REVOKE_API_KEY, { id: k.id }))) {
      setConfirming(false);
      onChanged();
    }
  };
  return (
    <tr class={k.revokedAt ? 'revoked' : undefined}>
      <td>{k.name}</td>
      <td class="mono">{k.prefix}</td>
      <td>{k.role}</td>
      <td>{k.projectId ?? <span class="muted">every project</span>}</td>
      <td>
        <Time value={k.createdAt} />
      </td>
      <td>{k.lastUsedAt ? <Time value={k.lastUsedAt} /> : 'never'}</td>
      <td>{k.expiresAt ? <Time value={k.expiresAt} /> : '—'}</td>
      <td class="actions" data-admin>
        {k.revokedAt ? (
          <span>
            revoked <Time value={k.revokedAt} />
          </span>
        ) : confirming ? (
          <div class="confirm" role="group" aria-label={`Revoke ${k.name}`}>
            <p>
              Revoke <strong>{k.name}</strong> (<code>{k.prefix}</code>)? Everything using it gets
              401 from now on; dashboard sessions signed in with it end.
              {self && <strong> You are signed in with this key: you will be signed out.</strong>}
            </p>
            <button type="button" class="danger" onClick={revoke} disabled={action.busy}>
              {action.busy ? 'Revoking…' : 'Revoke'}
            </button>{' '}
            <button
              type="button"
              onClick={() => {
                setConfirming(false);
                action.clear();
              }}
            >
              Cancel
            </button>
          </div>
        ) : (
          <button type="button" class="danger" onClick={() => setConfirming(true)}>
            Revoke<span class="visually-hidden"> {k.name}</span>
          </button>
        )}
        <FormError error={action.error} />
      </td>
    </tr>
  );
}
