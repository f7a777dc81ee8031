import { SortHeader } from '../../shell/sort-header.tsx';
import { Fragment } from 'preact';
import type { PageProps } from '../../pages.ts';
import { useQuery } from '../../graphql/hooks.ts';
import { field, readState } from '../../lib/url-state.ts';
import { href, location, setParams } from '../../router.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { AGENTS, type AgentsData } from './queries.ts';
import { SORTS, agentRows, formatRate, formatUsd, sortRows, type AgentSort } from './rows.ts';
import './agents.css';

export const RANGES: [number, string][] = [
  [1, 'last hour'],
  [6, 'last 6 hours'],
  [24, 'last 24 hours'],
  [168, 'last 7 days'],
  [720, 'last 30 days'],
];

const STATE = {
  project: field.string(),
  hours: field.number(24),
  sort: field.oneOf(SORTS, 'sessions'),
  dir: field.oneOf(['desc', 'asc'], 'desc'),
};

const COLUMNS: { key: AgentSort; label: string; num?: boolean }[] = [
  { key: 'name', label: 'Agent' },
  { key: 'sessions', label: 'Sessions', num: true },
  { key: 'errors', label: 'Error rate', num: true },
  { key: 'cost', label: 'Cost', num: true },
  { key: 'servers', label: 'Servers' },
  { key: 'last', label: 'Last call' },
];

/** The time range select, shared with the agent page; `hours` in the URL. */
export function RangeSelect({ hours }: { hours: number }) {
  return (
    <label>
      Time range{' '}
      <select
        value={String(hours)}
        onChange={(e) =>
          setParams({ hours: e.currentTarget.value === '24' ? null : e.currentTarget.value })
        }
      >
        {RANGES.map(([h, label]) => (
          <option key={h} value={String(h)}>
            {label}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * #27 Agents (`/agents`): every agent seen in the window's sessions or lineage, or catalogued,
 * with its sessions, tool-call error rate, cost and the servers it calls; sortable, sort in the URL.
 */
export default function Agents(_props: PageProps) {
  const s = readState(location.value.query, STATE);
  const q = useQuery<AgentsData>(AGENTS, { projectId: s.project || null, hours: s.hours });
  const link = (path: string, extra: Record<string, string | number | null> = {}) =>
    href(path, { project: s.project, ...extra });
  const hours = s.hours === 24 ? null : s.hours;
  const sortBy = (col: AgentSort) =>
    setParams({
      sort: col === 'sessions' ? null : col,
      dir: s.sort === col && s.dir === 'desc' ? 'asc' : null,
    });
  const rows = q.data ? sortRows(agentRows(q.data), s.sort, s.dir === 'desc') : [];

  return (
    <div class="agents">
      <div class="agents-bar">
        <RangeSelect hours={s.hours} />
        <span role="status" aria-live="polite">
          {q.data ? `${rows.length} agents` : ''}
        </span>
      </div>
      {q.error && <ErrorState error={q.error} retry={q.refetch} />}
      {!q.data && !q.error && <Loading what="agents" />}
      {q.data && rows.length === 0 && (
        <p class="empty">
          No agent sent spans in this time range and none is catalogued. Agents appear here from the{' '}
          <code>agent_name</code> of their spans.
        </p>
      )}
      {rows.length > 0 && (
        <table class="data agents-table">
          <caption class="visually-hidden">Agents, sortable by each column</caption>
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
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.name}>
                <th scope="row">
                  <a href={link(`/agents/${encodeURIComponent(r.name)}`, { hours })}>{r.name}</a>
                  {r.status && r.status !== 'active' && <span class="muted"> ({r.status})</span>}
                  {!r.catalogued && <span class="muted"> (not catalogued)</span>}
                </th>
                <td class="num">
                  <a
                    href={link('/sessions', { agent: r.name, hours })}
                    aria-label={`${r.sessions} sessions of ${r.name}`}
                  >
                    {r.sessions}
                  </a>
                </td>
                <td class={r.failedCalls ? 'num bad' : 'num'}>{formatRate(r.errorRate)}</td>
                <td class="num">{formatUsd(r.costUsd)}</td>
                <td class="servers">
                  {r.servers.length === 0
                    ? '—'
                    : r.servers.map((name, i) => (
                        <Fragment key={name}>
                          {i > 0 && ', '}
                          <a href={link(`/servers/${encodeURIComponent(name)}`)}>{name}</a>
                        </Fragment>
                      ))}
                </td>
                <td>{r.lastCallAt ? <Time value={r.lastCallAt} /> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
