import { memo } from 'preact/compat';
import type { SessionState } from '../../lib/session-state.ts';
import { href } from '../../router.ts';
import { Time } from '../../shell/time.tsx';
import type { LiveRow } from './queries.ts';

export interface TrackedSession {
  sessionId: string;
  spans: number;
  failures: number;
  state: SessionState;
}

const sessionHref = (id: string, project: string | null) =>
  href(`/sessions/${encodeURIComponent(id)}`, { project });

/** One span of the feed; rows never change once shown, so memo skips them on every flush. */
export const FeedRow = memo(function FeedRow({
  span: s,
  project,
}: {
  span: LiveRow;
  project: string | null;
}) {
  const failed = s.status !== 'success';
  return (
    <li class={failed ? 'row failed' : 'row'} data-span-id={s.spanId}>
      <Time value={s.startedAt} />
      <span class={`status st-${s.status}`}>{s.status}</span>
      <span class="what">
        {s.agentName ?? '—'} → {s.serverName} · {s.toolName}
        {s.spanType !== 'tool_call' && <span class="muted"> ({s.spanType})</span>}
      </span>
      <span class="num">{Math.round(s.latencyMs)} ms</span>
      {s.sessionId ? (
        <a class="sess" href={sessionHref(s.sessionId, project)}>
          {s.sessionId}
        </a>
      ) : (
        <span class="sess muted">no session</span>
      )}
      {s.error && <span class="err">{s.error}</span>}
    </li>
  );
});

/** Sessions heard in the feed, most recently active first, as running, idle, stuck or done. */
export function SessionList({
  sessions,
  project,
}: {
  sessions: TrackedSession[];
  project: string | null;
}) {
  return (
    <aside class="live-sessions" aria-labelledby="live-sessions-h">
      <h2 id="live-sessions-h">Sessions</h2>
      {sessions.length === 0 ? (
        <p class="muted">None heard yet.</p>
      ) : (
        <ul>
          {sessions.map((s) => (
            <li key={s.sessionId}>
              <span class={`state state-${s.state}`}>{s.state}</span>{' '}
              <a href={sessionHref(s.sessionId, project)}>{s.sessionId}</a>{' '}
              <span class="muted">
                {s.spans} span{s.spans === 1 ? '' : 's'}
                {s.failures ? `, ${s.failures} failed` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}
