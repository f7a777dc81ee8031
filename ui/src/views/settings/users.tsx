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
  CHANGE_USER_ROLE,
  DEACTIVATE_USER,
  INVITE_USER,
  SETTINGS_USERS,
  type InviteData,
  type SettingsUser,
  type SettingsUsersData,
} from './users-queries.ts';

const STATUSES = ['', 'invited', 'active', 'deactivated'] as const;

/** #27 Settings: users and invitations (`/settings/users`, global admins). */
export default function SettingsUsers(_props: PageProps) {
  return (
    <AdminPage>
      <Users />
    </AdminPage>
  );
}

function Users() {
  const status = (STATUSES as readonly string[]).includes(param('status')) ? param('status') : '';
  const q = useQuery<SettingsUsersData>(SETTINGS_USERS, {
    status: status || null,
    after: param('after') || null,
  });
  const [invite, setInvite] = useState<InviteData['inviteUser'] | null>(null);
  // Users are global: a project-bound admin may not manage them (the list's error says so).
  const global = viewer.value?.projectId === null;
  return (
    <>
      {invite ? (
        <Invitation invite={invite} onDone={() => setInvite(null)} />
      ) : (
        global && (
          <InviteForm
            onInvited={(i) => {
              setInvite(i);
              q.refetch();
            }}
          />
        )
      )}
      <section aria-labelledby="users-h">
        <h2 id="users-h">Users</h2>
        <label class="filter">
          Status{' '}
          <select
            value={status}
            onChange={(e) => setParams({ status: e.currentTarget.value, after: null })}
          >
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s || 'any'}
              </option>
            ))}
          </select>
        </label>
        {q.error ? (
          <ErrorState error={q.error} retry={q.refetch} />
        ) : !q.data ? (
          <Loading what="users" />
        ) : (
          <UserTable data={q.data} fetching={q.fetching} onChanged={q.refetch} />
        )}
      </section>
    </>
  );
}

function UserTable(props: { data: SettingsUsersData; fetching: boolean; onChanged: () => void }) {
  const users = props.data.usersConnection.edges.map((e) => e.node);
  if (users.length === 0) return <p class="muted">No users with this status.</p>;
  return (
    <>
      <table class="data settings-table">
        <thead>
          <tr>
            <th scope="col">E-mail</th>
            <th scope="col">Role</th>
            <th scope="col">State</th>
            <th scope="col">Invited</th>
            <th scope="col">Last sign-in</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody aria-busy={props.fetching}>
          {users.map((u) => (
            <UserRow key={u.id} user={u} onChanged={props.onChanged} />
          ))}
        </tbody>
      </table>
      <Pager
        hasNext={props.data.usersConnection.pageInfo.hasNextPage}
        endCursor={props.data.usersConnection.pageInfo.endCursor}
        what="users"
      />
    </>
  );
}

function InviteForm({ onInvited }: { onInvited: (i: InviteData['inviteUser']) => void }) {
  const action = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    let made: InviteData | undefined;
    const ok = await action.run(async () => {
      made = await mutate<InviteData>(INVITE_USER, {
        email: String(f.get('email') ?? ''),
        role: String(f.get('role') ?? 'viewer'),
      });
    });
    if (ok && made) {
      form.reset();
      onInvited(made.inviteUser);
    }
  };
  return (
    <section aria-labelledby="invite-h" class="settings-form" data-admin>
      <h2 id="invite-h">Invite a user</h2>
      <form onSubmit={submit} onInput={action.clear} aria-busy={action.busy}>
        <label>
          E-mail <input name="email" type="email" required autocomplete="off" />
        </label>
        <label>
          Role{' '}
          <select name="role">
            <option value="viewer">viewer</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <button class="primary" type="submit" disabled={action.busy}>
          {action.busy ? 'Inviting…' : 'Invite'}
        </button>
      </form>
      <FormError error={action.error} />
    </section>
  );
}

/** The invitation token, this once, and how the invited person sets their password with it. */
function Invitation({ invite, onDone }: { invite: InviteData['inviteUser']; onDone: () => void }) {
  const accept = `curl -X POST ${window.location.origin}/api/users/accept-invite \\
  -H 'Content-Type: application/json' \\
  -d '{"token":"${invite.inviteToken}","password":"<12 or more characters>"}'`;
  return (
    <ShownOnce
      label={`Invitation for ${invite.user.email}`}
      value={invite.inviteToken}
      onDone={onDone}
    >
      <p>
        Send the token to {invite.user.email}; it is valid until <Time value={invite.expiresAt} />.
        They choose their password with it, then sign in here with their e-mail:
      </p>
      <pre>{accept}</pre>
    </ShownOnce>
  );
}

function UserRow({ user: u, onChanged }: { user: SettingsUser; onChanged: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  const self = viewer.value?.user?.id === u.id;
  const other = u.role === 'admin' ? 'viewer' : 'admin';
  const changeRole = async () => {
    if (await action.run(() => mutate(CHANGE_USER_ROLE, { id: u.id, role: other }))) onChanged();
  };
  const deactivate = async () => {
    if (await action.run(() => mutate(DEACTIVATE_USER, { id: u.id }))) {
      setConfirming(false);
      onChanged();
    }
  };
  return (
    <tr>
      <td>
        {u.email}
        {self && <span class="muted"> (you)</span>}
      </td>
      <td>{u.role}</td>
      <td>
        <span class={`state state-${u.status}`}>{u.status}</span>
      </td>
      <td>
        <Time value={u.createdAt} />
      </td>
      <td>{u.lastLoginAt ? <Time value={u.lastLoginAt} /> : '—'}</td>
      <td class="actions" data-admin aria-busy={action.busy}>
        {u.status !== 'deactivated' && !confirming && (
          <>
            <button type="button" onClick={changeRole} disabled={action.busy}>
              Make {other}
              <span class="visually-hidden"> ({u.email})</span>
            </button>{' '}
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              Deactivate<span class="visually-hidden"> {u.email}</span>
            </button>
          </>
        )}
        {confirming && (
          <div class="confirm" role="group" aria-label={`Deactivate ${u.email}`}>
            <p>
              Deactivate <strong>{u.email}</strong>? They can no longer sign in, their dashboard
              sessions end and their keys are revoked.
            </p>
            <button type="button" class="danger" onClick={deactivate} disabled={action.busy}>
              {action.busy ? 'Deactivating…' : 'Deactivate'}
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
        )}
        <FormError error={action.error} />
      </td>
    </tr>
  );
}
