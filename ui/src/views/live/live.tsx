import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { query } from '../../graphql/client.ts';
import { createLiveBuffer, type LiveFilter, type LiveView } from '../../lib/live-buffer.ts';
import { createResumeCursor, replayInto } from '../../lib/reconnect.ts';
import { createSessionTracker } from '../../lib/session-state.ts';
import { field, readState } from '../../lib/url-state.ts';
import { location, param } from '../../router.ts';
import { openFeed, type FeedStatus } from './feed.ts';
import { Filters } from './filters.tsx';
import { LIVE_BACKLOG, STATUSES, type LiveBacklogData, type LiveRow } from './queries.ts';
import { FeedRow, SessionList, type TrackedSession } from './rows.tsx';
import './live.css';

const SCHEMA = {
  agent: field.string(),
  server: field.string(),
  status: field.oneOf(['', ...STATUSES], ''),
};
/** Rows kept (and rendered) at most; older ones scroll off. */
const MAX_ROWS = 500;

const endOf = (s: LiveRow) => new Date(s.startedAt).getTime() + (s.latencyMs || 0);

/**
 * The live page (`/live`, docs/ui.md#live): the tail of `spanNew` through live-buffer.ts (at most
 * four renders a second, MAX_ROWS kept, held while the user scrolls up), sessions classified by
 * session-state.ts, reconnects with reconnect.ts's backoff and a catch-up query de-duplicated by
 * spanId.
 */
export function Live() {
  const project = param('project') || null;
  const state = readState(location.value.query, SCHEMA);
  const filter: LiveFilter = useMemo(
    () => ({ agentName: state.agent, serverName: state.server, status: state.status }),
    [state.agent, state.server, state.status],
  );
  const [view, setView] = useState<LiveView<LiveRow>>({ rows: [], newCount: 0, paused: false });
  const [sessions, setSessions] = useState<TrackedSession[]>([]);
  const [status, setStatus] = useState<FeedStatus>({ kind: 'connecting' });
  const [backlogError, setBacklogError] = useState<string | null>(null);
  const [backlogLoaded, setBacklogLoaded] = useState(false);
  const feedRef = useRef<HTMLDivElement>(null);
  const filterRef = useRef(filter);
  filterRef.current = filter;

  // One buffer, tracker and cursor per project; the clock is the span's end while replaying.
  const live = useMemo(() => {
    let replayAt: number | null = null;
    const tracker = createSessionTracker({ now: () => replayAt ?? Date.now(), maxSessions: 200 });
    const cursor = createResumeCursor();
    const buffer = createLiveBuffer<LiveRow>({
      maxRows: MAX_ROWS,
      filter: filterRef.current,
      onFlush: (v) => {
        setView(v);
        setSessions(tracker.list().slice(0, 50));
      },
    });
    // Only a root *agent* span ends a run: flat sessions send root tool calls all along.
    const track = (s: LiveRow) =>
      tracker.track({ ...s, parentSpanId: s.spanType === 'agent' ? s.parentSpanId : undefined });
    const add = (s: LiveRow) => {
      if (!buffer.push(s)) return false;
      cursor.see(s);
      track(s);
      return true;
    };
    const replay = (spans: LiveRow[]) =>
      replayInto(
        {
          push: (s: LiveRow) => {
            replayAt = Math.min(Date.now(), endOf(s));
            try {
              return add(s);
            } finally {
              replayAt = null;
            }
          },
        },
        spans,
      );
    const refreshSessions = () => setSessions(tracker.list().slice(0, 50));
    return { buffer, cursor, add, replay, refreshSessions };
  }, [project]);

  const loadBacklog = (since: string | null) => {
    const f = filterRef.current;
    query<LiveBacklogData>(LIVE_BACKLOG, {
      filter: {
        projectId: project,
        since,
        agentName: f.agentName || null,
        serverName: f.serverName || null,
        status: f.status || null,
      },
    })
      .then((d) => {
        live.replay(d.spans.edges.map((e) => e.node));
        setBacklogError(null);
        setBacklogLoaded(true);
      })
      .catch((e: unknown) => setBacklogError(e instanceof Error ? e.message : String(e)));
  };

  useEffect(() => {
    const close = openFeed(project, {
      onSpan: (s) => void live.add(s),
      onStatus: setStatus,
      onConnected: () => loadBacklog(live.cursor.since()),
    });
    const timer = setInterval(live.refreshSessions, 5_000);
    return () => {
      close();
      clearInterval(timer);
      live.buffer.dispose();
    };
  }, [live]);

  useEffect(() => {
    live.buffer.setFilter(filter);
    if (backlogLoaded) loadBacklog(null);
  }, [filter]);

  // Following the tail: stay at the bottom unless the user scrolled up (then paused).
  useLayoutEffect(() => {
    const el = feedRef.current;
    if (el && !view.paused) el.scrollTop = el.scrollHeight;
  }, [view]);

  const onScroll = () => {
    const el = feedRef.current;
    if (!el) return;
    live.buffer.setPaused(el.scrollHeight - el.scrollTop - el.clientHeight > 24);
  };
  const jump = () => {
    live.buffer.setPaused(false);
    const el = feedRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  };

  return (
    <div class="live">
      <div class="live-main">
        <Filters state={state} status={status} />
        {backlogError && (
          <p class="bad" role="alert">
            Could not load recent spans: {backlogError}
          </p>
        )}
        <div
          ref={feedRef}
          class="feed"
          role="log"
          aria-label="Spans as they arrive, newest last"
          aria-busy={!backlogLoaded}
          tabIndex={0}
          onScroll={onScroll}
        >
          {view.rows.length === 0 ? (
            <p class="muted">
              {backlogLoaded ? 'No spans yet: they appear here as they arrive.' : 'Loading…'}
            </p>
          ) : (
            <ol>
              {view.rows.map((s) => (
                <FeedRow key={s.spanId} span={s} project={project} />
              ))}
            </ol>
          )}
        </div>
        {view.paused && (
          <button class="jump" onClick={jump}>
            {view.newCount} new: back to the latest
          </button>
        )}
      </div>
      <SessionList sessions={sessions} project={project} />
    </div>
  );
}
