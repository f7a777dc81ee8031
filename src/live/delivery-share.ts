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
 * at least 84% in sixteen runs (docs/benchmarks.md).
 *
 * One budget per app (createServices builds it), shared by all its live clients of every kind and
 * all its tenants. A process runs one app; tests run several in one process, and each keeps its
 * own share and credit.
 */
export const DEFAULT_SHARE = 0.1;
const BURST_MS = 5;

export class DeliveryBudget {
  /** The share of wall time live delivery may use. */
  readonly share: number;
  private credit = BURST_MS;
  private refilledAt = performance.now();
  private turnMark: number | null = null;
  private paused: Promise<void> | null = null;
  /** Consumers to wake in the next turn (wakeLater). */
  private readonly waking = new Set<() => void>();
  private wakeScheduled = false;

  /** `share`: the share of wall time live delivery may use (live.delivery_share_percent / 100). */
  constructor(share = DEFAULT_SHARE) {
    if (!(share > 0 && share <= 1))
      throw new RangeError(`delivery share must be in (0, 1] (got ${share})`);
    this.share = share;
  }

  /** Charges `ms` of delivery work. */
  charge(ms: number): void {
    this.credit -= ms;
  }

  /** Runs `fn` and charges its time. */
  timed<T>(fn: () => T): T {
    const t = performance.now();
    try {
      return fn();
    } finally {
      this.charge(performance.now() - t);
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
  deliveryPaused(): Promise<void> | null {
    const now = performance.now();
    if (this.turnMark === null) setImmediate(() => (this.turnMark = null));
    else this.charge(now - this.turnMark);
    this.turnMark = now;
    return this.waitForCredit(now);
  }

  /** Like deliveryPaused, for work that charges itself (SSE rounds). */
  creditWait(): Promise<void> | null {
    return this.waitForCredit(performance.now());
  }

  /**
   * Runs `fn` after the publishing code has returned, with every other consumer woken in this turn
   * in one macrotask: executing subscriptions never runs on the ingest path.
   */
  wakeLater(fn: () => void): void {
    this.waking.add(fn);
    if (this.wakeScheduled) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      const fns = [...this.waking];
      this.waking.clear();
      for (const f of fns) f();
    });
  }

  private waitForCredit(now: number): Promise<void> | null {
    if (this.paused) return this.paused;
    this.credit = Math.min(BURST_MS, this.credit + (now - this.refilledAt) * this.share);
    this.refilledAt = now;
    if (this.credit > 0) return null;
    this.paused = new Promise<void>((resolve) =>
      setTimeout(
        () => {
          this.paused = null;
          this.turnMark = null;
          resolve();
        },
        Math.max(1, Math.ceil(-this.credit / this.share)),
      ),
    );
    return this.paused;
  }
}
