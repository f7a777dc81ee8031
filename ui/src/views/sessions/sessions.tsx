import { SortHeader } from '../../shell/sort-header.tsx';
import { useEffect, useRef, useState } from 'preact/hooks';
import { query, describeError, type ReadableError } from '../../graphql/client.ts';
import { field, readState } from '../../lib/url-state.ts';
import { href, location, setParams } from '../../router.ts';
import { ErrorState } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { SESSIONS, type SessionItem, type SessionsData } from './queries.ts';
import { useVirtualRows } from './virtual-rows.ts';
import './sessions.css';

const HEALTH_TAGS = [
  'loop_detected',
  'budget_exceeded',
  'circuit_breaker_open',
  'timeout',
  'schema_drift',
  'tool_failure',
  'budget_warning',
  'success_with_fallback',
  'success',
] as const;
const SORTS = ['', 'started', 'duration', 'calls', 'failures', 'cost', 'tokens'] as const;
const RANGES: [number, string][] = [
  [1, 'last hour'],
  [6, 'last 6 hours'],
  [24, 'last 24 hours'],
  [168, 'last 7 days'],
  [720, 'last 30 days'],
];
// 50 rows of these fields stay well under the query cost limit (src/graphql/limits.ts).
const PAGE = 50;
const ROW = 36;

const STATE = {
  project: field.string(),
  agent: field.string(),
  health: field.oneOf(['', ...HEALTH_TAGS], ''),
  hours: field.number(24),
  q: field.string(),
  sort: field.oneOf(SORTS, ''),
  dir: field.oneOf(['desc', 'asc'], 'desc'),
  sel: field.list(),
};

const COLUMNS: { key: (typeof SORTS)[number]; label: string; num?: boolean }[] = [
  { key: 'started', label: 'Started' },
  { key: 'duration', label: 'Duration', num: true },
  { key: 'calls', label: 'Calls', num: true },
  { key: 'failures', label: 'Failures', num: true },
  { key: 'cost', label: 'Cost', num: true },
  { key: 'tokens', label: 'Tokens', num: true },
];

interface ListState {
  rows: SessionItem[];
  total: number | null;
  cursor: string | null;
  more: boolean;
  loading: boolean;
  error?: ReadableError;
}

/** The session list (`/sessions`): filters and sort in the URL, windowed rows, paged on scroll. */
export function Sessions() {
  const s = readState(location.value.query, STATE);
  const vars = {
    projectId: s.project || null,
    agentName: s.agent || null,
    healthTag: s.health || null,
    text: s.q || null,
    hours: s.hours,
    orderBy: s.sort || null,
    descending: s.sort ? s.dir === 'desc' : null,
    first: PAGE,
  };
  const key = JSON.stringify(vars);
  const [list, setList] = useState<ListState>({
    rows: [],
    total: null,
    cursor: null,
    more: false,
    loading: true,
  });
  const [retry, setRetry] = useState(0);
  const generation = useRef(0);

  const load = (after: string | null, reset: boolean) => {
    const gen = reset ? ++generation.current : generation.current;
    setList((l) => ({ ...(reset ? { ...l, rows: [] } : l), loading: true, error: undefined }));
    query<SessionsData>(SESSIONS, { ...vars, after }).then(
      (d) => {
        if (gen !== generation.current) return;
        setList((l) => ({
          rows: [...(reset ? [] : l.rows), ...d.sessions.edges.map((e) => e.node)],
          total: d.sessions.totalCount,
          cursor: d.sessions.pageInfo.endCursor,
          more: d.sessions.pageInfo.hasNextPage,
          loading: false,
        }));
      },
      (err: unknown) => {
        if (gen === generation.current)
          setList((l) => ({ ...l, loading: false, error: describeError(err) }));
      },
    );
  };
  useEffect(() => load(null, true), [key, retry]);

  const scroller = useRef<HTMLDivElement>(null);
  const { items, before, after } = useVirtualRows(scroller, list.rows.length, ROW);
  const lastShown = items.at(-1)?.index ?? -1;
  useEffect(() => {
    if (list.more && !list.loading && !list.error && lastShown >= list.rows.length - 20)
      load(list.cursor, false);
  }, [lastShown, list.more, list.loading, list.rows.length]);

  const link = (path: string, q: Record<string, string> = {}) =>
    href(path, { project: s.project, ...q });
  const sel = s.sel.slice(0, 2);
  const toggle = (id: string) =>
    setParams({
      sel: (sel.includes(id) ? sel.filter((x) => x !== id) : [...sel, id].slice(-2)).join(','),
    });
  const sortBy = (col: string) =>
    setParams({
      sort: col,
      dir: s.sort === col && s.dir === 'desc' ? 'asc' : null,
    });

  return (
    <div class="sessions">
      <form
        class="filters"
        aria-label="Filter sessions"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          setParams({ agent: String(f.get('agent') ?? ''), q: String(f.get('q') ?? '') });
        }}
      >
        <label>
          Agent <input name="agent" defaultValue={s.agent} key={`a${s.agent}`} />
        </label>
        <label>
          Health
          <select value={s.health} onChange={(e) => setParams({ health: e.currentTarget.value })}>
            <option value="">any</option>
            {HEALTH_TAGS.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Time range
          <select
            value={String(s.hours)}
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
        <label>
          Search{' '}
          <input
            name="q"
            type="search"
            defaultValue={s.q}
            key={`q${s.q}`}
            placeholder="session id or agent"
          />
        </label>
        <button type="submit">Apply</button>
      </form>
      <div class="list-bar">
        <span role="status" aria-live="polite">
          {list.total === null ? 'Loading…' : `${list.rows.length} of ${list.total} sessions`}
        </span>
        {sel.length === 2 ? (
          <a class="button" href={link('/compare', { a: sel[0]!, b: sel[1]! })}>
            Compare
          </a>
        ) : (
          <span class="muted">Select two sessions to compare them</span>
        )}
      </div>
      {list.error && <ErrorState error={list.error} retry={() => setRetry((r) => r + 1)} />}
      <div class="table-scroll" ref={scroller} tabIndex={0} aria-label="Sessions list, scrollable">
        <table class="data sessions-table">
          <thead>
            <tr>
              <th scope="col">
                <span class="visually-hidden">Select</span>
              </th>
              <th scope="col">Session</th>
              <th scope="col">Agent</th>
              <th scope="col">Health</th>
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
            {before > 0 && (
              <tr aria-hidden="true" class="spacer">
                <td colSpan={10} style={{ height: `${before}px` }} />
              </tr>
            )}
            {items.map((it) => {
              const r = list.rows[it.index]!;
              return (
                <tr
                  key={`${r.projectId}:${r.sessionId}`}
                  class={sel.includes(r.sessionId) ? 'selected' : undefined}
                >
                  <td>
                    <input
                      type="checkbox"
                      checked={sel.includes(r.sessionId)}
                      onChange={() => toggle(r.sessionId)}
                      aria-label={`Select session ${r.sessionId}`}
                    />
                  </td>
                  <td class="mono">
                    <a href={link(`/sessions/${encodeURIComponent(r.sessionId)}`)}>{r.sessionId}</a>
                  </td>
                  <td>{r.agentName ?? '—'}</td>
                  <td>
                    <span class={`tag tag-${r.healthTag}`}>{r.healthTag}</span>
                  </td>
                  <td>
                    <Time value={r.firstCallAt} />
                  </td>
                  <td class="num">{formatMs(r.durationMs)}</td>
                  <td class="num">{r.toolCalls}</td>
                  <td class={r.failedCalls ? 'num bad' : 'num'}>{r.failedCalls}</td>
                  <td class="num">${r.estCostUsd.toFixed(4)}</td>
                  <td class="num">{r.inputTokens + r.outputTokens}</td>
                </tr>
              );
            })}
            {after > 0 && (
              <tr aria-hidden="true" class="spacer">
                <td colSpan={10} style={{ height: `${after}px` }} />
              </tr>
            )}
          </tbody>
        </table>
        {!list.loading && list.rows.length === 0 && !list.error && (
          <p class="empty">No sessions match these filters in this time range.</p>
        )}
      </div>
    </div>
  );
}

export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} m ${Math.round((ms % 60_000) / 1000)} s`;
}
