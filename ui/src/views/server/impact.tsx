import { useQuery } from '../../graphql/hooks.ts';
import { visibleEscapes } from '../../lib/json-view.ts';
import { param, setParams } from '../../router.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Time } from '../../shell/time.tsx';
import { AgentLink, SessionTable } from './impact-tables.tsx';
import { BLAST, TOOL_IMPACT, type BlastData, type ToolImpactData } from './impact-queries.ts';
import './tabs.css';

const RANGES: [number, string][] = [
  [1, 'last hour'],
  [24, 'last 24 hours'],
  [168, 'last 7 days'],
];

/**
 * The server page's impact tab (`hours`, `tool` in the URL): the blast radius, which agents and
 * sessions called the server in the window and so are hit if it goes down, and for one chosen
 * tool the drift impact, who is hit if that tool changes.
 */
export function ImpactTab({ name }: { name: string }) {
  const projectId = param('project') || null;
  const hours = RANGES.find(([h]) => String(h) === param('hours'))?.[0] ?? 24;
  const tool = param('tool');
  const q = useQuery<BlastData>(BLAST, { name, projectId, hours });
  if (q.error) return <ErrorState error={q.error} retry={q.refetch} />;
  if (!q.data) return <Loading what="blast radius" />;
  const b = q.data.blastRadius;
  const tools = q.data.serverTools.tools.map((t) => t.name);
  return (
    <section class="server-impact" aria-labelledby="impact-h">
      <h2 id="impact-h">Impact</h2>
      <label class="impact-range">
        Window{' '}
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
      <h3>If the server goes down</h3>
      <p>
        Severity <strong class={`blast blast-${b.severity.toLowerCase()}`}>{b.severity}</strong>{' '}
        (server {b.serverStatus}): {b.totalAgents} agent{b.totalAgents === 1 ? '' : 's'},{' '}
        {b.totalSessions} session{b.totalSessions === 1 ? '' : 's'}, {b.totalCalls} call
        {b.totalCalls === 1 ? '' : 's'} in the window.
      </p>
      {b.affectedAgents.length > 0 && (
        <table class="data impact-agents">
          <caption>Affected agents</caption>
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col" class="num">
                Calls
              </th>
              <th scope="col" class="num">
                Sessions
              </th>
              <th scope="col" class="num">
                Error rate
              </th>
              <th scope="col" class="num">
                Mean latency
              </th>
              <th scope="col">Last call</th>
            </tr>
          </thead>
          <tbody>
            {b.affectedAgents.map((a) => (
              <tr key={a.agentName ?? ''}>
                <td>
                  <AgentLink name={a.agentName} />
                </td>
                <td class="num">{a.callCount}</td>
                <td class="num">{a.sessionCount}</td>
                <td class="num">{a.errorRate}%</td>
                <td class="num">{a.avgLatencyMs} ms</td>
                <td>
                  <Time value={a.lastCalledAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <SessionTable caption="Sessions that called it (newest first)" rows={q.data.serverSessions} />
      <h3>If a tool changes</h3>
      <label class="impact-tool">
        Tool{' '}
        <select value={tool} onChange={(e) => setParams({ tool: e.currentTarget.value })}>
          <option value="">choose a tool</option>
          {[...new Set([...tools, ...(tool ? [tool] : [])])].map((t) => (
            <option key={t} value={t}>
              {visibleEscapes(t)}
            </option>
          ))}
        </select>
      </label>
      {tool && <ToolImpact name={name} projectId={projectId} hours={hours} tool={tool} />}
    </section>
  );
}

function ToolImpact(p: { name: string; projectId: string | null; hours: number; tool: string }) {
  const q = useQuery<ToolImpactData>(TOOL_IMPACT, p);
  if (q.error) return <ErrorState error={q.error} retry={q.refetch} />;
  if (!q.data) return <Loading what="drift impact" />;
  const d = q.data.driftImpact;
  return (
    <div class="tool-impact" aria-live="polite">
      <p>
        A change of <code>{visibleEscapes(p.tool)}</code> reaches {d.consumers.length} agent
        {d.consumers.length === 1 ? '' : 's'} and {d.totalSessions} session
        {d.totalSessions === 1 ? '' : 's'} of the window.
      </p>
      {d.consumers.length > 0 && (
        <table class="data impact-consumers">
          <caption>Consumers of {visibleEscapes(p.tool)}</caption>
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col" class="num">
                Sessions
              </th>
              <th scope="col">Last call</th>
            </tr>
          </thead>
          <tbody>
            {d.consumers.map((c) => (
              <tr key={c.agentName ?? ''}>
                <td>
                  <AgentLink name={c.agentName} />
                </td>
                <td class="num">{c.sessionCount}</td>
                <td>
                  <Time value={c.lastCalledAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <SessionTable
        caption={`Sessions that called ${visibleEscapes(p.tool)}`}
        rows={q.data.serverSessions}
      />
    </div>
  );
}
