/**
 * How many spans the next group commit may take. One tenant alone: `maxCommitSpans`, the most
 * efficient. Several tenants active (each enqueued within the last 5 seconds): a group is sized to
 * commit in about FAIR_COMMIT_MS at the commit rate measured so far, since a request that arrives
 * waits for the commit in flight whatever the fair queue does: with a flood's 5,000-span groups
 * committing at 2,000 spans/s on a busy machine, every other tenant waited 2.5 s a request.
 * A request is split into chunks of CHUNK_SPANS when queued so that groups can be that small.
 */
export const CHUNK_SPANS = 250;
const FAIR_COMMIT_MS = 50;
/** The smallest fair group: below it a commit's fixed cost dominates. */
const MIN_FAIR_GROUP = 250;
/**
 * A tenant counts as active this long after its last request: a neighbour whose requests are
 * delayed for a second (a busy event loop) must not hand the flood full groups meanwhile.
 */
const ACTIVE_MS = 5000;

export class GroupSize {
  private readonly lastSeen = new Map<string, number>();
  /** Spans per ms of the commits measured (a moving average); 0 until one is. */
  private rate = 0;

  constructor(
    private readonly maxCommitSpans: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A request of `tenant` was queued. */
  seen(tenant: string): void {
    this.lastSeen.set(tenant, this.now());
  }

  /**
   * A group of `spans` committed in `ms`. Only large groups are measured: a small one's rate is
   * mostly the commit's fixed cost, and measuring it would shrink the groups further.
   */
  committed(spans: number, ms: number): void {
    if (spans < 2 * MIN_FAIR_GROUP || ms <= 0) return;
    const r = spans / ms;
    this.rate = this.rate === 0 ? r : 0.7 * this.rate + 0.3 * r;
  }

  /** The cap for the group being formed. */
  cap(): number {
    const t = this.now();
    let active = 0;
    for (const [tenant, at] of this.lastSeen) {
      if (t - at <= ACTIVE_MS) active++;
      else this.lastSeen.delete(tenant);
    }
    if (active < 2 || this.rate === 0) return this.maxCommitSpans;
    return Math.min(
      this.maxCommitSpans,
      Math.max(MIN_FAIR_GROUP, Math.round(this.rate * FAIR_COMMIT_MS)),
    );
  }
}
