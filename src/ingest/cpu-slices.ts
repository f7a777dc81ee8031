import type { Principal } from '../auth/principal.ts';

/**
 * Ingest's CPU work (decoding a request body, then validating, normalising and encoding its spans:
 * about 1.5 ms for a native batch of 100 spans, 70 KB of JSON) runs in slices, so the event loop
 * keeps polling in between. Requests arrive in bursts: a group commit answers many at once and
 * their clients send the next batches together. Handled back to back, 16 of them held the loop for
 * 15-30 ms, and everything else waited behind them: liveness probes, reads, live clients
 * (hardening #8).
 *
 * A slice is SLICE_BYTES of request bodies per turn of the event loop (about 3 ms of work). Bodies
 * that arrive while the turn's slice lasts go ahead at once; the rest wait in arrival order, and
 * at the end of each turn (after its I/O poll) what is left of the slice lets the next of them
 * through. The total work is the same; it is only interleaved with everything else. Small
 * requests go many to a slice; a body larger than a slice goes alone.
 *
 * Waiting bodies are shared fairly between tenants (project or key, see tenantOf) by bytes, with
 * start-time fair queueing as in the writer: each piece of work gets a start tag, the later of the
 * current virtual time and the end of its tenant's previous piece (start + bytes), and the lowest
 * tag goes first; each tenant's pieces keep their order. A tenant sending 10,000-span bodies is
 * charged 7 MB a body, so another's 35 KB body goes ahead of its next piece (issue 25).
 *
 * One CpuSlices per app (createServices builds it), shared by its HTTP and gRPC receivers, so all
 * of the app's tenants take turns in one queue. A process runs one app; tests run several in one
 * process, and each keeps its own slice and queue.
 */
export const SLICE_BYTES = 128 * 1024;

interface Waiting {
  bytes: number;
  start: number;
  go: () => void;
}

/** Whose body this is, for taking turns: the key's project, else the key, else the client address. */
export function tenantOf(principal: Principal, address: string): string {
  if (principal.projectId !== null) return `project:${principal.projectId}`;
  return principal.keyId !== null ? `key:${principal.keyId}` : `ip:${address}`;
}

export class CpuSlices {
  private usedThisTurn = 0;
  private turnEndScheduled = false;
  /** Per tenant, its waiting pieces in order (and so in start-tag order). */
  private readonly waiting = new Map<string, Waiting[]>();
  /** The end tag of each tenant's latest piece, and the start tag of the piece let through last. */
  private readonly finish = new Map<string, number>();
  private virtualTime = 0;

  /**
   * undefined: go ahead now. Otherwise a promise that settles when this body's turn comes; the
   * caller then does its CPU work before its next await.
   */
  ingestSlice(bytes: number, tenant = ''): Promise<void> | undefined {
    this.scheduleTurnEnd();
    const start = Math.max(this.virtualTime, this.finish.get(tenant) ?? 0);
    this.finish.set(tenant, start + bytes);
    if (this.waiting.size === 0 && this.usedThisTurn < SLICE_BYTES) {
      this.usedThisTurn += bytes;
      this.virtualTime = start;
      this.forgetIdle();
      return undefined;
    }
    return this.enqueue(tenant, bytes, start);
  }

  /**
   * A turn boundary inside one request's work (after its body was let through by ingestSlice):
   * undefined, go on, unless another tenant has a body waiting; then this next piece (`bytes`
   * worth) queues by its start tag like a body. One tenant alone never waits here, nor is it
   * charged against the turn's slice twice.
   */
  yieldToOthers(bytes: number, tenant = ''): Promise<void> | undefined {
    let others = false;
    for (const t of this.waiting.keys()) {
      if (t !== tenant) {
        others = true;
        break;
      }
    }
    if (!others) return undefined;
    this.scheduleTurnEnd();
    const start = Math.max(this.virtualTime, this.finish.get(tenant) ?? 0);
    this.finish.set(tenant, start + bytes);
    return this.enqueue(tenant, bytes, start);
  }

  private enqueue(tenant: string, bytes: number, start: number): Promise<void> {
    return new Promise<void>((go) => {
      const q = this.waiting.get(tenant);
      if (q) q.push({ bytes, start, go });
      else this.waiting.set(tenant, [{ bytes, start, go }]);
    });
  }

  /** The waiting piece with the lowest start tag (the smaller on a tie). */
  private nextWaiting(): Waiting | undefined {
    let best: { tenant: string; head: Waiting } | undefined;
    for (const [tenant, q] of this.waiting) {
      const head = q[0] as Waiting;
      if (
        !best ||
        head.start < best.head.start ||
        (head.start === best.head.start && head.bytes < best.head.bytes)
      )
        best = { tenant, head };
    }
    if (!best) return undefined;
    const q = this.waiting.get(best.tenant) as Waiting[];
    q.shift();
    if (q.length === 0) this.waiting.delete(best.tenant);
    this.virtualTime = Math.max(this.virtualTime, best.head.start);
    this.forgetIdle();
    return best.head;
  }

  /** Tenants with nothing waiting whose share is used up to the virtual time have nothing to remember. */
  private forgetIdle(): void {
    if (this.finish.size <= this.waiting.size + 1000) return;
    for (const [tenant, end] of this.finish)
      if (end <= this.virtualTime && !this.waiting.has(tenant)) this.finish.delete(tenant);
  }

  private scheduleTurnEnd(): void {
    if (this.turnEndScheduled) return;
    this.turnEndScheduled = true;
    setImmediate(() => this.endTurn());
  }

  /**
   * Once per turn, after the I/O poll: lets waiting bodies through with what is left of the turn's
   * slice (their work runs right after, in this turn), then the next turn starts a new slice. Set
   * from here, the next run comes after the next poll.
   */
  private endTurn(): void {
    this.turnEndScheduled = false;
    let budget = SLICE_BYTES - this.usedThisTurn;
    this.usedThisTurn = 0;
    while (this.waiting.size > 0 && budget > 0) {
      const next = this.nextWaiting() as Waiting;
      budget -= next.bytes;
      next.go();
    }
    if (this.waiting.size > 0) this.scheduleTurnEnd();
  }
}
