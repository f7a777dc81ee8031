import { useState } from 'preact/hooks';
import { mutate } from '../../graphql/client.ts';
import { useQuery } from '../../graphql/hooks.ts';
import { field, readState } from '../../lib/url-state.ts';
import type { PageProps } from '../../pages.ts';
import { href, location, setParams } from '../../router.ts';
import { isAdmin } from '../../shell/session.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { METRIC_LABEL, StatusTag, formatValue } from './format.tsx';
import { CREATE_SLO, SLOS, type SlosData } from './queries.ts';
import { SloDetail } from './slo-detail.tsx';
import { SloForm } from './slo-form.tsx';
import './slos.css';

const STATES = ['', 'breached', 'ok', 'no_data'] as const;
const STATE = {
  project: field.string(),
  slo: field.string(),
  status: field.oneOf(STATES, ''),
  /** The same filter under the name `?state=` (both are accepted; the page writes `status`). */
  state: field.oneOf(STATES, ''),
  agent: field.string(),
};

/**
 * SLOs (`/slos`): every SLO of the project evaluated now (current value against target, sample
 * size, since when), filtered by `?status=` (or `?state=`) and `?agent=`; `?slo=<id>` opens one. Admins create,
 * edit and delete (docs/ui.md#slos).
 */
export default function Slos(_props: PageProps) {
  const s = readState(location.value.query, STATE);
  const status = s.status || s.state;
  const projectId = s.project || null;
  const [created, setCreated] = useState(0);
  const res = useQuery<SlosData>(SLOS, { projectId }, { pollMs: 60_000 });
  const all = res.data?.sloStatus ?? [];
  const agent = s.agent.toLowerCase();
  const rows = all.filter(
    (r) =>
      (!status || r.status === status) && (!agent || r.agentName.toLowerCase().includes(agent)),
  );
  const breached = all.filter((r) => r.status === 'breached').length;
  const selected = res.data?.slos.find((d) => d.sloId === s.slo);
  const link = (slo: string | null) =>
    href('/slos', { project: s.project, status, agent: s.agent, slo });

  return (
    <div class="slos">
      <form
        class="filters"
        aria-label="Filter SLOs"
        onSubmit={(e) => {
          e.preventDefault();
          setParams({ agent: String(new FormData(e.currentTarget).get('agent') ?? '') });
        }}
      >
        <label>
          Status
          <select
            value={status}
            onChange={(e) => setParams({ status: e.currentTarget.value, state: null })}
          >
            <option value="">any</option>
            <option value="breached">breached</option>
            <option value="ok">met</option>
            <option value="no_data">no data</option>
          </select>
        </label>
        <label>
          Agent <input name="agent" defaultValue={s.agent} key={`a${s.agent}`} />
        </label>
        <button type="submit">Apply</button>
      </form>
      {res.error && <ErrorState error={res.error} retry={res.refetch} />}
      {!res.data && !res.error && <Loading what="SLOs" />}
      {res.data && (
        <>
          <p role="status" class="muted">
            {rows.length} of {all.length} SLOs shown, {breached} breached
          </p>
          <div class="table-wrap">
            <table class="data slo-table">
              <caption class="visually-hidden">SLO status, evaluated now</caption>
              <thead>
                <tr>
                  <th scope="col">Agent</th>
                  <th scope="col">Metric</th>
                  <th scope="col" class="num">
                    Target
                  </th>
                  <th scope="col" class="num">
                    Current
                  </th>
                  <th scope="col">Status</th>
                  <th scope="col" class="num">
                    Sessions
                  </th>
                  <th scope="col" class="num">
                    Window
                  </th>
                  <th scope="col">Since</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.sloId} class={r.sloId === s.slo ? 'selected' : undefined}>
                    <th scope="row">
                      <a href={link(r.sloId)} aria-current={r.sloId === s.slo ? 'true' : undefined}>
                        {r.agentName}
                      </a>
                    </th>
                    <td>{METRIC_LABEL[r.metric] ?? r.metric}</td>
                    <td class="num">{formatValue(r.metric, r.target)}</td>
                    <td class={r.status === 'breached' ? 'num bad' : 'num'}>
                      {formatValue(r.metric, r.currentValue)}
                    </td>
                    <td>
                      <StatusTag status={r.status} />
                    </td>
                    <td class="num">{r.sampleSize}</td>
                    <td class="num">{r.windowHours} h</td>
                    <td>{r.since ? <Time value={r.since} /> : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {rows.length === 0 && (
              <p class="empty">
                {all.length === 0
                  ? 'No SLOs in this project yet.'
                  : 'No SLO matches these filters.'}
              </p>
            )}
          </div>
          {s.slo && !selected && (
            <p class="muted" role="alert">
              No SLO {s.slo} in this project. <a href={link(null)}>Show all</a>
            </p>
          )}
          {selected && (
            <SloDetail
              key={selected.sloId}
              slo={selected}
              status={all.find((r) => r.sloId === selected.sloId)}
              projectId={projectId}
              onChanged={res.refetch}
              onDeleted={() => {
                setParams({ slo: null });
                res.refetch();
              }}
            />
          )}
          {isAdmin() && (
            <section aria-labelledby="new-slo" data-admin>
              <h2 id="new-slo">New SLO</h2>
              <SloForm
                id="new-slo-form"
                key={created}
                legend="Define an SLO for one agent"
                submit="Create SLO"
                onSave={async (input) => {
                  const made = await mutate<{ createSlo: { sloId: string } }>(CREATE_SLO, {
                    input,
                    projectId,
                  });
                  setCreated((n) => n + 1);
                  setParams({ slo: made.createSlo.sloId }, { push: true });
                  res.refetch();
                }}
              />
            </section>
          )}
        </>
      )}
    </div>
  );
}
