/**
 * Live sessions as running, idle, stuck or done, from when each was last heard of (a clock is
 * injected so tests need no real time). Spans arrive when they end, so silence is the signal: a
 * session whose root span has arrived (`parentSpanId: null`; absent, as in today's `SpanEvent`,
 * says nothing) is done.
 */

export type SessionState = 'running' | 'idle' | 'stuck' | 'done';

export interface ActivityThresholds {
  /** Silent longer than this: idle (default 30 s). */
  idleAfterMs: number;
  /** Silent longer than this: stuck (default 2 min). */
  stuckAfterMs: number;
  /** Silent longer than this: done (default 30 min). */
  doneAfterMs: number;
}

export const DEFAULT_THRESHOLDS: ActivityThresholds = {
  idleAfterMs: 30_000,
  stuckAfterMs: 120_000,
  doneAfterMs: 1_800_000,
};

export interface SessionActivity {
  sessionId: string;
  lastActivityAt: number;
  spans: number;
  failures: number;
  ended: boolean;
}

export function classifySession(
  activity: Pick<SessionActivity, 'lastActivityAt' | 'ended'>,
  now: number,
  t: ActivityThresholds = DEFAULT_THRESHOLDS,
): SessionState {
  const silent = now - activity.lastActivityAt;
  if (activity.ended || silent > t.doneAfterMs) return 'done';
  if (silent > t.stuckAfterMs) return 'stuck';
  return silent > t.idleAfterMs ? 'idle' : 'running';
}

export interface SessionTracker {
  track(span: { sessionId?: string | null; parentSpanId?: string | null; status: string }): void;
  /** Most recently active first. */
  list(): (SessionActivity & { state: SessionState })[];
}

/** Remembers at most `maxSessions`, forgetting the longest silent. */
export function createSessionTracker(
  opts: { now?: () => number; maxSessions?: number; thresholds?: ActivityThresholds } = {},
): SessionTracker {
  const now = opts.now ?? Date.now;
  const max = opts.maxSessions ?? 500;
  const sessions = new Map<string, SessionActivity>();
  return {
    track(span) {
      if (!span.sessionId) return;
      const prev = sessions.get(span.sessionId);
      const next: SessionActivity = {
        sessionId: span.sessionId,
        lastActivityAt: now(),
        spans: (prev?.spans ?? 0) + 1,
        failures: (prev?.failures ?? 0) + (span.status === 'success' ? 0 : 1),
        ended: (prev?.ended ?? false) || span.parentSpanId === null,
      };
      // Re-inserting keeps the Map in least-recently-active-first order.
      sessions.delete(span.sessionId);
      sessions.set(span.sessionId, next);
      if (sessions.size > max) sessions.delete(sessions.keys().next().value as string);
    },
    list() {
      const at = now();
      return [...sessions.values()]
        .reverse()
        .map((s) => ({ ...s, state: classifySession(s, at, opts.thresholds) }));
    },
  };
}
