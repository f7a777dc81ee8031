/**
 * Back-pressure for the live span feed (`spanNew`): events arrive at any rate, the view hears at
 * most one flush per `flushEveryMs`, keeps the newest `maxRows`, holds new rows while paused
 * (the user is scrolling) and counts them, and drops a spanId it has already seen (a reconnect
 * replays) with a bounded memory of ids.
 */

/** The fields of a GraphQL `SpanEvent` the buffer reads. */
export interface LiveSpan {
  spanId: string;
  sessionId?: string | null;
  agentName?: string | null;
  serverName?: string | null;
  status: string;
}

export interface LiveFilter {
  agentName?: string;
  serverName?: string;
  status?: string;
}

export interface Scheduler {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface LiveView<S> {
  /** Oldest first, filtered; unchanged while paused. */
  rows: readonly S[];
  /** Rows matching the filter that arrived while paused (at most maxRows). */
  newCount: number;
  paused: boolean;
}

export interface LiveBufferOptions<S> {
  onFlush: (view: LiveView<S>) => void;
  flushEveryMs?: number;
  maxRows?: number;
  /** How many spanIds to remember for de-duplication. */
  dedupIds?: number;
  filter?: LiveFilter;
  scheduler?: Scheduler;
}

export interface LiveBuffer<S> {
  /** False when the span was a duplicate. */
  push(span: S): boolean;
  setPaused(paused: boolean): void;
  setFilter(filter: LiveFilter): void;
  /** Whether a spanId was seen (reconnect.ts uses it to skip replays). */
  has(spanId: string): boolean;
  view(): LiveView<S>;
  dispose(): void;
}

export function matchesFilter(span: LiveSpan, f: LiveFilter): boolean {
  return (
    (!f.agentName || span.agentName === f.agentName) &&
    (!f.serverName || span.serverName === f.serverName) &&
    (!f.status || span.status === f.status)
  );
}

const globalScheduler: Scheduler = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof setTimeout>),
};

export function createLiveBuffer<S extends LiveSpan>(opts: LiveBufferOptions<S>): LiveBuffer<S> {
  const flushEveryMs = opts.flushEveryMs ?? 250;
  const maxRows = opts.maxRows ?? 1000;
  const dedupIds = Math.max(opts.dedupIds ?? 20_000, maxRows);
  const scheduler = opts.scheduler ?? globalScheduler;
  let filter: LiveFilter = opts.filter ?? {};
  let kept: S[] = [];
  let held: S[] = [];
  let paused = false;
  let timer: unknown = null;
  const seen = new Set<string>();

  const cap = (rows: S[]) => (rows.length > maxRows ? rows.slice(rows.length - maxRows) : rows);
  const view = (): LiveView<S> => {
    kept = cap(kept);
    held = cap(held);
    return {
      rows: kept.filter((s) => matchesFilter(s, filter)),
      newCount: held.reduce((n, s) => n + (matchesFilter(s, filter) ? 1 : 0), 0),
      paused,
    };
  };
  const schedule = () => {
    if (timer !== null) return;
    timer = scheduler.setTimeout(() => {
      timer = null;
      opts.onFlush(view());
    }, flushEveryMs);
  };

  return {
    push(span) {
      if (seen.has(span.spanId)) return false;
      seen.add(span.spanId);
      // A Set iterates in insertion order: the first value is the oldest id.
      if (seen.size > dedupIds) seen.delete(seen.values().next().value as string);
      (paused ? held : kept).push(span);
      // Trimmed in batches (amortised O(1) a push); view() trims to maxRows exactly.
      if (kept.length > maxRows * 2) kept = cap(kept);
      if (held.length > maxRows * 2) held = cap(held);
      schedule();
      return true;
    },
    setPaused(next) {
      if (next === paused) return;
      paused = next;
      if (!paused) {
        kept = cap([...kept, ...held]);
        held = [];
      }
      schedule();
    },
    setFilter(next) {
      filter = { ...next };
      schedule();
    },
    has: (spanId) => seen.has(spanId),
    view,
    dispose() {
      if (timer !== null) scheduler.clearTimeout(timer);
      timer = null;
    },
  };
}
