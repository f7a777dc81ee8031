/**
 * Reconnecting the live feed: exponential backoff with jitter that resets only after a connection
 * stayed up (a server that accepts and drops at once keeps backing off), and a resume cursor for
 * the catch-up query after a reconnect. The catch-up overlaps what was seen; the live buffer's
 * spanId de-dup (live-buffer.ts) drops the overlap. Wire into graphql-ws's `createClient` as
 * `retryAttempts: Infinity`, `retryWait: () => sleep(backoff.nextDelay())`,
 * `on: { connected: backoff.connected, closed: backoff.disconnected }`.
 */

export interface BackoffOptions {
  baseMs?: number;
  maxMs?: number;
  factor?: number;
  /** The fraction of each delay that is random: 0 none, 1 "full jitter" (default 0.5). */
  jitter?: number;
  /** A connection up this long resets the attempts when it drops (default 10 s). */
  stableAfterMs?: number;
  random?: () => number;
  now?: () => number;
}

export interface Backoff {
  /** The wait before the next attempt, in ms; counts the attempt. */
  nextDelay(): number;
  connected(): void;
  disconnected(): void;
  attempts(): number;
}

export function createBackoff(opts: BackoffOptions = {}): Backoff {
  const { baseMs = 500, maxMs = 30_000, factor = 2, jitter = 0.5, stableAfterMs = 10_000 } = opts;
  const random = opts.random ?? Math.random;
  const now = opts.now ?? Date.now;
  let attempts = 0;
  let upSince: number | null = null;
  return {
    nextDelay() {
      const ceiling = Math.min(maxMs, baseMs * factor ** attempts);
      attempts++;
      return Math.round(ceiling * (1 - jitter + jitter * random()));
    },
    connected() {
      upSince = now();
    },
    disconnected() {
      if (upSince !== null && now() - upSince >= stableAfterMs) attempts = 0;
      upSince = null;
    },
    attempts: () => attempts,
  };
}

export interface ResumeCursor {
  /** Record a span received (SpanEvent.startedAt). */
  see(span: { startedAt: string | number | Date }): void;
  /** The `since` for the catch-up query (SpanFilter.since, ISO), or null before any span. */
  since(): string | null;
}

/** `overlapMs` back from the newest span seen, to cover spans stored out of order (default 5 s). */
export function createResumeCursor(opts: { overlapMs?: number } = {}): ResumeCursor {
  const overlapMs = opts.overlapMs ?? 5_000;
  let newest = -Infinity;
  return {
    see(span) {
      const t =
        typeof span.startedAt === 'number' ? span.startedAt : new Date(span.startedAt).getTime();
      if (t > newest) newest = t;
    },
    since: () => (Number.isFinite(newest) ? new Date(newest - overlapMs).toISOString() : null),
  };
}

/** Push catch-up spans oldest first; returns how many were new (the rest were duplicates). */
export function replayInto<S extends { startedAt: string | number | Date }>(
  target: { push(span: S): boolean },
  spans: readonly S[],
): number {
  const t = (s: S) =>
    typeof s.startedAt === 'number' ? s.startedAt : new Date(s.startedAt).getTime();
  return [...spans].sort((a, b) => t(a) - t(b)).filter((s) => target.push(s)).length;
}
