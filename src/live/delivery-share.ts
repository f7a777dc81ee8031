/**
 * Live delivery gets a share of the process's event loop, not all of it (hardening #8: 200
 * dashboards must not starve ingest). Every kind of delivery is charged the time it really takes:
 * SSE rounds (encoding and socket writes), the writes of WebSocket frames, and GraphQL event
 * processing (the time between one subscription step and the next in the same turn). Credit
 * accrues at the share of wall time, up to BURST_MS; while it is spent, GraphQL consumers and SSE
 * rounds wait for it. A client that waits lags, and loses its oldest events to its 50-event
 * buffer (docs/api.md#live-clients-one-budget); a client that keeps up at a normal rate never waits.
 *
 * The share is the most a flood of live clients takes from ingest when the event loop is what
 * limits it, and what delivery costs outside the charged time comes on top of it: the collections
 * its allocations cause, the kernel's side of the socket writes, and the subscribers themselves
 * when they run on the same machine. So the default sits well under the 20% of throughput that
 * live clients may cost (spec target): at 20% the bench kept 73-91% of its throughput, at 10%
 * at least 84% in sixteen runs (docs/benchmarks.md). The event loop is the process's, so the
 * share is too: the last setDeliveryShare wins.
 */
const DEFAULT_SHARE = 0.1;
const BURST_MS = 5;
let share = DEFAULT_SHARE;
let credit = BURST_MS;
let refilledAt = performance.now();
let turnMark: number | null = null;
let paused: Promise<void> | null = null;

/** Sets the share of wall time live delivery may use (live.delivery_share_percent / 100). */
export function setDeliveryShare(fraction: number): void {
  if (!(fraction > 0 && fraction <= 1))
    throw new RangeError(`delivery share must be in (0, 1] (got ${fraction})`);
  share = fraction;
}

/** Charges `ms` of delivery work. */
export function charge(ms: number): void {
  credit -= ms;
}

/** Runs `fn` and charges its time. */
export function timed<T>(fn: () => T): T {
  const t = performance.now();
  try {
    return fn();
  } finally {
    charge(performance.now() - t);
  }
}

/**
 * null while delivery has credit; otherwise a promise that settles when it has some again. Called
 * by GraphQL consumers before each event: the time since the previous call in the same turn was
 * spent delivering, and is charged. That includes whatever ran in between (yoga's own steps, the
 * collections its allocations cause, now and then an unrelated callback): capping each step at
 * 1 ms let GraphQL delivery take more than its share in the bench (76-81% throughput instead of
 * 80-97%), so the whole gap counts.
 */
export function deliveryPaused(): Promise<void> | null {
  const now = performance.now();
  if (turnMark === null) setImmediate(() => (turnMark = null));
  else charge(now - turnMark);
  turnMark = now;
  return waitForCredit(now);
}

/** Like deliveryPaused, for work that charges itself (SSE rounds). */
export function creditWait(): Promise<void> | null {
  return waitForCredit(performance.now());
}

function waitForCredit(now: number): Promise<void> | null {
  if (paused) return paused;
  credit = Math.min(BURST_MS, credit + (now - refilledAt) * share);
  refilledAt = now;
  if (credit > 0) return null;
  paused = new Promise<void>((resolve) =>
    setTimeout(
      () => {
        paused = null;
        turnMark = null;
        resolve();
      },
      Math.max(1, Math.ceil(-credit / share)),
    ),
  );
  return paused;
}
