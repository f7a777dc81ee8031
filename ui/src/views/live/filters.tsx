import { setParams } from '../../router.ts';
import type { FeedStatus } from './feed.ts';
import { STATUSES } from './queries.ts';

function describe(s: FeedStatus): string {
  switch (s.kind) {
    case 'connecting':
      return 'Connecting…';
    case 'live':
      return 'Live';
    case 'waiting':
      return `Disconnected: retrying in ${s.seconds} s (attempt ${s.attempt})`;
    case 'error':
      return `Error: ${s.message}`;
  }
}

/** The feed's filters (agent, server, status: in the URL) and the connection state. */
export function Filters({
  state,
  status,
}: {
  state: { agent: string; server: string; status: string };
  status: FeedStatus;
}) {
  return (
    <div class="live-bar">
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Agent{' '}
          <input
            type="search"
            name="agent"
            value={state.agent}
            onChange={(e) => setParams({ agent: e.currentTarget.value.trim() })}
          />
        </label>
        <label>
          Server{' '}
          <input
            type="search"
            name="server"
            value={state.server}
            onChange={(e) => setParams({ server: e.currentTarget.value.trim() })}
          />
        </label>
        <label>
          Status{' '}
          <select
            name="status"
            value={state.status}
            onChange={(e) => setParams({ status: e.currentTarget.value })}
          >
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </form>
      <p class={`conn conn-${status.kind}`} role="status">
        {describe(status)}
      </p>
    </div>
  );
}
