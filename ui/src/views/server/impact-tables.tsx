import { visibleEscapes } from '../../lib/json-view.ts';
import { href, param } from '../../router.ts';
import { Time } from '../../shell/time.tsx';
import type { SessionHit } from './impact-queries.ts';

/** A link to the agent's page; spans without an agent name have none. */
export function AgentLink({ name }: { name: string | null }) {
  if (name === null) return <span class="muted">(no agent name)</span>;
  return (
    <a href={href(`/agents/${encodeURIComponent(name)}`, { project: param('project') })}>
      {visibleEscapes(name)}
    </a>
  );
}

/** Sessions hit, each linking to its session page. */
export function SessionTable({ caption, rows }: { caption: string; rows: SessionHit[] }) {
  if (rows.length === 0) return <p class="muted">No sessions called it in the window.</p>;
  return (
    <table class="data impact-sessions">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Session</th>
          <th scope="col">Agent</th>
          <th scope="col" class="num">
            Calls
          </th>
          <th scope="col" class="num">
            Errors
          </th>
          <th scope="col">Last call</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((s) => (
          <tr key={s.sessionId}>
            <td>
              <a
                href={href(`/sessions/${encodeURIComponent(s.sessionId)}`, {
                  project: param('project'),
                })}
              >
                {visibleEscapes(s.sessionId)}
              </a>
            </td>
            <td>
              <AgentLink name={s.agentName} />
            </td>
            <td class="num">{s.callCount}</td>
            <td class="num">{s.errorCount}</td>
            <td>
              <Time value={s.lastCalledAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
