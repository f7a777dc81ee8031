import { SortHeader } from '../../shell/sort-header.tsx';
import { useMemo } from 'preact/hooks';
import { useQuery } from '../../graphql/hooks.ts';
import { field, readState } from '../../lib/url-state.ts';
import { href, location, setParams } from '../../router.ts';
import { isAdmin } from '../../shell/session.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { ALL, useActions, type Actions } from './actions.ts';
import { SERVERS, type ServersData } from './queries.ts';
import { GRADES, mergeRows, SORTS, STATUSES, viewRows, type ServerRow } from './rows.ts';
import './servers.css';

const STATE = {
  project: field.string(),
  status: field.oneOf(['', ...STATUSES], ''),
  grade: field.oneOf(['', ...GRADES], ''),
  sort: field.oneOf(SORTS, 'name'),
  dir: field.oneOf(['asc', 'desc'], 'asc'),
};

const COLUMNS: { key: (typeof SORTS)[number]; label: string; num?: boolean }[] = [
  { key: 'name', label: 'Server' },
  { key: 'status', label: 'Status' },
  { key: 'grade', label: 'Grade' },
  { key: 'checked', label: 'Last check' },
  { key: 'latency', label: 'Latency', num: true },
  { key: 'tools', label: 'Tools', num: true },
  { key: 'drift', label: 'Drift' },
];

/**
 * The server list (`/servers`): every configured and observed server with its latest health,
 * grade and drift flag; filter and sort in the URL; admins check or scan one or all servers.
 */
export default function Servers() {
  const s = readState(location.value.query, STATE);
  const vars = useMemo(() => ({ projectId: s.project || null }), [s.project]);
  const q = useQuery<ServersData>(SERVERS, vars, { pollMs: 30_000 });
  const actions = useActions(vars.projectId, q.refetch);
  const admin = isAdmin();
  if (q.error && !q.data) return <ErrorState error={q.error} retry={q.refetch} />;
  if (!q.data) return <Loading what="servers" />;
  const all = mergeRows(q.data);
  const rows = viewRows(all, { ...s, desc: s.dir === 'desc' });
  const sortBy = (col: string) =>
    setParams({
      sort: col === 'name' ? null : col,
      dir: s.sort === col && s.dir === 'asc' ? 'desc' : null,
    });
  const anyConfigured = all.some((r) => r.configured);
  const global = actions.results[ALL];

  return (
    <div class="servers">
      <div class="servers-bar">
        <label>
          Status
          <select value={s.status} onChange={(e) => setParams({ status: e.currentTarget.value })}>
            <option value="">any</option>
            {STATUSES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Grade
          <select value={s.grade} onChange={(e) => setParams({ grade: e.currentTarget.value })}>
            <option value="">any</option>
            {GRADES.map((g) => (
              <option key={g} value={g}>
                {g}
              </option>
            ))}
          </select>
        </label>
        <span role="status" aria-live="polite" class="servers-count">
          {rows.length} of {all.length} servers
        </span>
        {admin && anyConfigured && (
          <span class="servers-global" aria-busy={actions.busy[ALL] ? 'true' : 'false'}>
            <ActionButton actions={actions} action="check" label="Check all now" />
            <ActionButton actions={actions} action="scan" label="Scan all now" />
          </span>
        )}
      </div>
      <p role="status" aria-live="polite" class={global?.failed ? 'result bad' : 'result'}>
        {actions.busy[ALL]
          ? actions.busy[ALL] === 'check'
            ? 'Checking every server…'
            : 'Scanning every server…'
          : global?.text}
      </p>
      {q.error && <ErrorState error={q.error} retry={q.refetch} />}
      <table class="data servers-table">
        <thead>
          <tr>
            {COLUMNS.map((c) => (
              <SortHeader
                key={c.key}
                label={c.label}
                num={c.num}
                active={s.sort === c.key}
                ascending={s.dir === 'asc'}
                onSort={() => sortBy(c.key)}
              />
            ))}
            {admin && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <Row key={r.name} r={r} project={s.project} admin={admin} actions={actions} />
          ))}
        </tbody>
      </table>
      {rows.length === 0 && (
        <p class="empty">
          {all.length === 0
            ? 'No servers yet: configure them in spyglass.yaml (docs/health.md) or send spans that call them.'
            : 'No server matches these filters.'}
        </p>
      )}
    </div>
  );
}

function Row({
  r,
  project,
  admin,
  actions,
}: {
  r: ServerRow;
  project: string;
  admin: boolean;
  actions: Actions;
}) {
  const result = actions.results[r.name];
  return (
    <tr aria-busy={actions.busy[r.name] ? 'true' : undefined}>
      <th scope="row">
        <a href={href(`/servers/${encodeURIComponent(r.name)}`, { project })}>{r.name}</a>
        {!r.configured && <span class="muted"> (observed)</span>}
      </th>
      <td>
        <span class={`status status-${r.status}`} title={r.error ?? undefined}>
          {r.status}
        </span>
      </td>
      <td>{r.grade ? <span class={`grade grade-${r.grade[0]}`}>{r.grade}</span> : '—'}</td>
      <td>{r.checkedAt ? <Time value={r.checkedAt} /> : 'never'}</td>
      <td class="num">{r.latencyMs === null ? '—' : `${Math.round(r.latencyMs)} ms`}</td>
      <td class="num">{r.toolsCount ?? '—'}</td>
      <td>{r.drift ? <span class="bad">drift</span> : r.configured ? 'no' : '—'}</td>
      {admin && (
        <td>
          <div class="row-actions">
            {r.configured && (
              <>
                <ActionButton actions={actions} action="check" label="Check now" server={r.name} />
                <ActionButton actions={actions} action="scan" label="Scan now" server={r.name} />
                <span role="status" class={result?.failed ? 'result bad' : 'result'}>
                  {result?.text}
                </span>
              </>
            )}
          </div>
        </td>
      )}
    </tr>
  );
}

function ActionButton(p: {
  actions: Actions;
  action: 'check' | 'scan';
  label: string;
  server?: string;
}) {
  const running = p.actions.busy[p.server ?? ALL];
  const anyAll = p.actions.busy[ALL];
  return (
    <button
      type="button"
      data-admin
      disabled={!!running || (!!anyAll && p.server !== undefined)}
      aria-label={p.server ? `${p.label}: ${p.server}` : undefined}
      onClick={() => void p.actions.run(p.action, p.server)}
    >
      {running === p.action ? (p.action === 'check' ? 'Checking…' : 'Scanning…') : p.label}
    </button>
  );
}
