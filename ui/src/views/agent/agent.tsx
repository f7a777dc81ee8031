import type { PageProps } from '../../pages.ts';
import { useQuery } from '../../graphql/hooks.ts';
import { field, readState } from '../../lib/url-state.ts';
import { href, location } from '../../router.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { RangeSelect } from '../agents/agents.tsx';
import { errorRate, formatRate, formatUsd, serverName, serversOf } from '../agents/rows.ts';
import { formatMs } from '../sessions/sessions.tsx';
import { Prevention } from './prevention.tsx';
import { AGENT, type AgentData } from './queries.ts';
import './agent.css';

const STATE = { project: field.string(), hours: field.number(24) };
/** Recent sessions shown here; the session list has them all. */
const RECENT = 20;

/** A catalog runbook link only when it is a web address (never javascript: or the like). */
const webUrl = (u: string | null) => (u && /^https?:\/\//i.test(u) ? u : null);

/**
 * #27 Agent (`/agents/:name`): its numbers in the window, the servers it calls, its recent
 * sessions and its prevention config (editable by admins).
 */
export default function Agent({ params }: PageProps) {
  const name = params.name ?? '';
  const s = readState(location.value.query, STATE);
  const projectId = s.project || null;
  const q = useQuery<AgentData>(AGENT, { name, projectId, hours: s.hours, first: RECENT });
  const hours = s.hours === 24 ? null : s.hours;
  const link = (path: string, extra: Record<string, string | number | null> = {}) =>
    href(path, { project: s.project, ...extra });
  const d = q.data;
  const stats = d?.agentSessionStats[0];
  const entry = d?.agents.find((a) => a.name === name);
  const servers = d ? serversOf(d.lineage.edges, name) : [];
  const sessions = d?.sessions.edges.map((e) => e.node) ?? [];
  const allSessions = link('/sessions', { agent: name, hours });

  return (
    <div class="agent">
      <p class="agent-head">
        <a href={link('/agents', { hours })}>All agents</a>
        <span>
          Agent <strong class="mono">{name}</strong>
        </span>
        <RangeSelect hours={s.hours} />
      </p>
      {q.error && <ErrorState error={q.error} retry={q.refetch} />}
      {!d && !q.error && <Loading what="the agent" />}
      {d && (
        <>
          {entry && (
            <p class="catalog">
              {entry.description && <span>{entry.description}</span>}
              {entry.owner && <span>Owner: {entry.owner}</span>}
              {entry.status && <span>Status: {entry.status}</span>}
              {webUrl(entry.runbookUrl) && (
                <a href={webUrl(entry.runbookUrl)!} rel="noopener noreferrer" target="_blank">
                  Runbook
                </a>
              )}
            </p>
          )}
          <section aria-labelledby="summary">
            <h2 id="summary">Summary</h2>
            <dl class="agent-stats">
              <div>
                <dt>Sessions</dt>
                <dd>
                  <a href={allSessions}>{stats?.sessions ?? 0}</a>
                </dd>
              </div>
              <div>
                <dt>Tool calls</dt>
                <dd>{stats?.toolCalls ?? 0}</dd>
              </div>
              <div>
                <dt>Error rate</dt>
                <dd class={stats?.failedCalls ? 'bad' : undefined} data-testid="agent-error-rate">
                  {formatRate(stats ? errorRate(stats) : null)}
                </dd>
              </div>
              <div>
                <dt>Prevented calls</dt>
                <dd>{stats?.preventedCalls ?? 0}</dd>
              </div>
              <div>
                <dt>Cost</dt>
                <dd data-testid="agent-cost">{formatUsd(stats?.estCostUsd ?? 0)}</dd>
              </div>
              <div>
                <dt>Last call</dt>
                <dd>{stats ? <Time value={stats.lastCallAt} /> : '—'}</dd>
              </div>
            </dl>
          </section>
          <section aria-labelledby="servers">
            <h2 id="servers">Servers it calls</h2>
            {servers.length === 0 ? (
              <p class="muted">No tool calls to a server in this time range.</p>
            ) : (
              <table class="data agent-servers">
                <thead>
                  <tr>
                    <th scope="col">Server</th>
                    <th scope="col" class="num">
                      Calls
                    </th>
                    <th scope="col" class="num">
                      Errors
                    </th>
                    <th scope="col" class="num">
                      Error rate
                    </th>
                    <th scope="col" class="num">
                      Avg latency
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {servers.map((e) => (
                    <tr key={e.target}>
                      <th scope="row">
                        <a href={link(`/servers/${encodeURIComponent(serverName(e.target))}`)}>
                          {serverName(e.target)}
                        </a>
                      </th>
                      <td class="num">{e.calls}</td>
                      <td class={e.errors ? 'num bad' : 'num'}>{e.errors}</td>
                      <td class="num">
                        {formatRate(errorRate({ toolCalls: e.calls, failedCalls: e.errors }))}
                      </td>
                      <td class="num">{formatMs(e.avgLatencyMs)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <section aria-labelledby="recent">
            <h2 id="recent">Recent sessions</h2>
            <p>
              <a href={allSessions}>
                All {d.sessions.totalCount} sessions of {name}
              </a>
            </p>
            {sessions.length > 0 && (
              <table class="data agent-sessions">
                <thead>
                  <tr>
                    <th scope="col">Session</th>
                    <th scope="col">Health</th>
                    <th scope="col">Started</th>
                    <th scope="col" class="num">
                      Duration
                    </th>
                    <th scope="col" class="num">
                      Calls
                    </th>
                    <th scope="col" class="num">
                      Failures
                    </th>
                    <th scope="col" class="num">
                      Cost
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {sessions.map((r) => (
                    <tr key={`${r.projectId}:${r.sessionId}`}>
                      <th scope="row" class="mono">
                        <a href={link(`/sessions/${encodeURIComponent(r.sessionId)}`)}>
                          {r.sessionId}
                        </a>
                      </th>
                      <td>
                        <span class={`tag tag-${r.healthTag}`}>{r.healthTag}</span>
                      </td>
                      <td>
                        <Time value={r.firstCallAt} />
                      </td>
                      <td class="num">{formatMs(r.durationMs)}</td>
                      <td class="num">{r.toolCalls}</td>
                      <td class={r.failedCalls ? 'num bad' : 'num'}>{r.failedCalls}</td>
                      <td class="num">{formatUsd(r.estCostUsd)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </>
      )}
      <Prevention name={name} projectId={projectId} />
    </div>
  );
}
