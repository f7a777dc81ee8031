import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError, query, type ReadableError } from '../../graphql/client.ts';
import { visibleEscapes } from '../../lib/json-view.ts';
import { field, readState, type Schema } from '../../lib/url-state.ts';
import type { PageProps } from '../../pages.ts';
import { location, setParams } from '../../router.ts';
import { ErrorState } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { AdminsOnly } from './admins-only.tsx';
import { AUDIT_LOG, type AuditItem, type AuditLogData } from './audit-queries.ts';
import { SettingsNav } from './settings-nav.tsx';
import './audit.css';

/** The actions the server records (src/audit/audit-log.ts), offered as suggestions. */
const ACTIONS = [
  'api_key.created',
  'api_key.revoked',
  'project.created',
  'project.updated',
  'project.deleted',
  'user.invited',
  'user.invite_accepted',
  'user.role_changed',
  'user.deactivated',
  'user.login',
  'user.login_failed',
  'ui.login',
  'ui.login_failed',
  'ui.logout',
  'settings.updated',
  'alerts.config_saved',
  'model_pricing.updated',
  'prevention_config.update',
  'prevention_config.delete',
  'slo.created',
  'slo.updated',
  'slo.deleted',
  'catalog.updated',
  'catalog.deleted',
];
const PAGE = 50;

const STATE: Schema<AuditState> = {
  actor: field.string(),
  action: field.string(),
  target: field.string(),
  result: field.oneOf(['', 'success', 'failure'], ''),
  since: field.instant(),
  until: field.instant(),
};

interface AuditState {
  actor: string;
  action: string;
  target: string;
  result: '' | 'success' | 'failure';
  since: string | null;
  until: string | null;
}

interface ListState {
  rows: AuditItem[];
  cursor: string | null;
  more: boolean;
  loading: boolean;
  error?: ReadableError;
}

/** `/settings/audit`: the audit log, newest first, filtered by the URL, paged by cursor. */
export default function SettingsAudit(_props: PageProps) {
  return (
    <>
      <SettingsNav />
      <AdminsOnly what="The audit log">
        <AuditLog />
      </AdminsOnly>
    </>
  );
}

function AuditLog() {
  const s = readState(location.value.query, STATE);
  const vars = {
    actor: s.actor || null,
    action: s.action || null,
    target: s.target || null,
    result: s.result || null,
    since: s.since,
    until: s.until,
    first: PAGE,
  };
  const key = JSON.stringify(vars);
  const [list, setList] = useState<ListState>({
    rows: [],
    cursor: null,
    more: false,
    loading: true,
  });
  const [retry, setRetry] = useState(0);
  const generation = useRef(0);

  const load = (after: string | null, reset: boolean) => {
    const gen = reset ? ++generation.current : generation.current;
    setList((l) => ({ ...(reset ? { ...l, rows: [] } : l), loading: true, error: undefined }));
    query<AuditLogData>(AUDIT_LOG, { ...vars, after }).then(
      (d) => {
        if (gen !== generation.current) return;
        setList((l) => ({
          rows: [...(reset ? [] : l.rows), ...d.auditLog.edges.map((e) => e.node)],
          cursor: d.auditLog.pageInfo.endCursor,
          more: d.auditLog.pageInfo.hasNextPage,
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

  const filtered = [s.actor, s.action, s.target, s.result, s.since, s.until].some(Boolean);
  return (
    <div class="audit">
      <Filters s={s} />
      <p role="status" aria-live="polite" class="audit-status">
        {list.loading && list.rows.length === 0
          ? 'Loading…'
          : `${list.rows.length} ${list.rows.length === 1 ? 'entry' : 'entries'}${list.more ? ', older ones below' : ''}`}
      </p>
      {list.error && <ErrorState error={list.error} retry={() => setRetry((r) => r + 1)} />}
      {list.rows.length > 0 && (
        <div class="audit-scroll">
          <table class="audit-table">
            <caption class="visually-hidden">Audit log, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Actor</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Result</th>
                <th scope="col">Project</th>
              </tr>
            </thead>
            <tbody>
              {list.rows.map((r) => (
                <tr key={r.eventId}>
                  <td>
                    <Time value={r.timestamp} />
                  </td>
                  <td class="mono">{visibleEscapes(r.actor)}</td>
                  <td class="mono">{r.action}</td>
                  <td class="mono target">{visibleEscapes(r.resource)}</td>
                  <td class={r.result === 'failure' ? 'bad' : undefined}>{r.result}</td>
                  <td class="mono">{r.projectId ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {!list.loading && !list.error && list.rows.length === 0 && (
        <p class="muted">
          {filtered ? 'No audit entries match these filters.' : 'The audit log is empty.'}
        </p>
      )}
      {list.more && (
        <button
          type="button"
          onClick={() => load(list.cursor, false)}
          disabled={list.loading}
          aria-busy={list.loading}
        >
          {list.loading ? 'Loading older entries…' : 'Show older entries'}
        </button>
      )}
    </div>
  );
}

/** The filter form: applied to the URL on submit (the list reloads from there). */
function Filters({ s }: { s: AuditState }) {
  const reset = JSON.stringify(s);
  return (
    <form
      class="audit-filters"
      aria-label="Filter the audit log"
      key={reset}
      onSubmit={(e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        const text = (name: string) => String(f.get(name) ?? '').trim();
        setParams({
          actor: text('actor'),
          action: text('action'),
          target: text('target'),
          result: text('result'),
          since: fromLocal(text('since')),
          until: fromLocal(text('until')),
        });
      }}
    >
      <label>
        Actor
        <input name="actor" defaultValue={s.actor} placeholder="key:sg_1a2b… or user:j***@…" />
      </label>
      <label>
        Action
        <input name="action" defaultValue={s.action} list="audit-actions" autocomplete="off" />
        <datalist id="audit-actions">
          {ACTIONS.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
      </label>
      <label>
        Target starts with
        <input name="target" defaultValue={s.target} placeholder="project:acme" />
      </label>
      <label>
        Result
        <select name="result" defaultValue={s.result}>
          <option value="">any</option>
          <option value="success">success</option>
          <option value="failure">failure</option>
        </select>
      </label>
      <label>
        From (local time)
        <input name="since" type="datetime-local" step="1" defaultValue={toLocal(s.since)} />
      </label>
      <label>
        Until (local time)
        <input name="until" type="datetime-local" step="1" defaultValue={toLocal(s.until)} />
      </label>
      <button type="submit">Apply</button>
      <button
        type="button"
        onClick={() =>
          setParams({
            actor: null,
            action: null,
            target: null,
            result: null,
            since: null,
            until: null,
          })
        }
      >
        Clear
      </button>
    </form>
  );
}

/** A datetime-local value (local wall time) as an ISO instant; '' stays ''. */
function fromLocal(value: string): string {
  const d = value ? new Date(value) : null;
  return d && !Number.isNaN(d.getTime()) ? d.toISOString() : '';
}

/** An ISO instant as a datetime-local value in local wall time. */
function toLocal(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}
