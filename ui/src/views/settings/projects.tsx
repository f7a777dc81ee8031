import { useState } from 'preact/hooks';
import { mutate } from '../../graphql/client.ts';
import { useQuery } from '../../graphql/hooks.ts';
import type { PageProps } from '../../pages.ts';
import { param, setParams } from '../../router.ts';
import { viewer } from '../../shell/session.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { AdminPage, FormError, useAction } from './admin.tsx';
import {
  CREATE_PROJECT,
  DELETE_PROJECT,
  RENAME_PROJECT,
  SETTINGS_PROJECTS,
  type SettingsProject,
} from './projects-queries.ts';

/** #27 Settings: projects (`/settings/projects`, `/settings`): list, create, rename, delete. */
export default function SettingsProjects(_props: PageProps) {
  return (
    <AdminPage>
      <Projects />
    </AdminPage>
  );
}

function Projects() {
  const q = useQuery<{ projects: SettingsProject[] }>(SETTINGS_PROJECTS);
  // A project-bound admin may rename its own project but neither create nor delete one.
  const global = viewer.value?.projectId === null;
  if (q.error) return <ErrorState error={q.error} retry={q.refetch} />;
  if (!q.data) return <Loading what="projects" />;
  return (
    <>
      <section aria-labelledby="projects-h">
        <h2 id="projects-h">Projects</h2>
        <table class="data settings-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Id</th>
              <th scope="col">Created</th>
              <th scope="col">Updated</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody aria-busy={q.fetching}>
            {q.data.projects.map((p) => (
              <ProjectRow key={p.id} project={p} canDelete={global} onChanged={q.refetch} />
            ))}
          </tbody>
        </table>
      </section>
      {global ? (
        <CreateProject onCreated={q.refetch} />
      ) : (
        <p class="muted">
          Your key is bound to one project: only a global admin creates or deletes projects.
        </p>
      )}
    </>
  );
}

function CreateProject({ onCreated }: { onCreated: () => void }) {
  const action = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const id = String(f.get('id') ?? '').trim();
    const ok = await action.run(() =>
      mutate(CREATE_PROJECT, { name: String(f.get('name') ?? ''), id: id || null }),
    );
    if (ok) {
      form.reset();
      onCreated();
    }
  };
  return (
    <section aria-labelledby="create-project-h" class="settings-form" data-admin>
      <h2 id="create-project-h">Create a project</h2>
      <form onSubmit={submit} onInput={action.clear} aria-busy={action.busy}>
        <label>
          Name <input name="name" required maxLength={200} />
        </label>
        <label>
          Id (optional){' '}
          <input name="id" pattern="[a-z0-9][a-z0-9_\-]{0,63}" placeholder="from the name" />
        </label>
        <button class="primary" type="submit" disabled={action.busy}>
          {action.busy ? 'Creating…' : 'Create'}
        </button>
      </form>
      <p class="muted">
        The id is what spans, keys and <code>?project=</code> use: lowercase letters, digits, - or
        _. It cannot be changed later; the name can.
      </p>
      <FormError error={action.error} />
    </section>
  );
}

function ProjectRow(props: {
  project: SettingsProject;
  canDelete: boolean;
  onChanged: () => void;
}) {
  const p = props.project;
  const [mode, setMode] = useState<'view' | 'rename' | 'delete'>('view');
  const [typed, setTyped] = useState('');
  const action = useAction();
  const close = () => {
    setMode('view');
    setTyped('');
    action.clear();
  };
  const rename = async (e: Event) => {
    e.preventDefault();
    const name = String(new FormData(e.currentTarget as HTMLFormElement).get('name') ?? '');
    if (await action.run(() => mutate(RENAME_PROJECT, { id: p.id, name }))) {
      close();
      props.onChanged();
    }
  };
  const remove = async (e: Event) => {
    e.preventDefault();
    if (typed !== p.name) return;
    if (await action.run(() => mutate(DELETE_PROJECT, { id: p.id }))) {
      // The project the URL followed is gone: fall back to every project.
      if (param('project') === p.id) setParams({ project: null });
      close();
      props.onChanged();
    }
  };
  return (
    <tr>
      <td>{p.name}</td>
      <td class="mono">{p.id}</td>
      <td>
        <Time value={p.createdAt} />
      </td>
      <td>
        <Time value={p.updatedAt} />
      </td>
      <td class="actions" data-admin>
        {mode === 'view' && (
          <>
            <button type="button" onClick={() => setMode('rename')} aria-label={`Rename ${p.name}`}>
              Rename
            </button>{' '}
            {props.canDelete && p.id !== 'default' && (
              <button
                type="button"
                class="danger"
                onClick={() => setMode('delete')}
                aria-label={`Delete ${p.name}`}
              >
                Delete
              </button>
            )}
          </>
        )}
        {mode === 'rename' && (
          <form class="inline" onSubmit={rename} aria-busy={action.busy}>
            <label>
              New name for {p.id}{' '}
              <input name="name" defaultValue={p.name} required maxLength={200} />
            </label>{' '}
            <button class="primary" type="submit" disabled={action.busy}>
              Save
            </button>{' '}
            <button type="button" onClick={close}>
              Cancel
            </button>
          </form>
        )}
        {mode === 'delete' && (
          <form class="inline confirm" onSubmit={remove} aria-busy={action.busy}>
            <p>
              Deleting <strong>{p.name}</strong> removes all of its data, its audit entries and the
              keys bound to it. This cannot be undone.
            </p>
            <label>
              Type the project's name to confirm{' '}
              <input
                value={typed}
                onInput={(e) => setTyped(e.currentTarget.value)}
                autocomplete="off"
              />
            </label>{' '}
            <button class="danger" type="submit" disabled={action.busy || typed !== p.name}>
              {action.busy ? 'Deleting…' : 'Delete for good'}
            </button>{' '}
            <button type="button" onClick={close}>
              Cancel
            </button>
          </form>
        )}
        <FormError error={action.error} />
      </td>
    </tr>
  );
}
