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
 */
export const SLICE_BYTES = 128 * 1024;

interface Waiting {
  bytes: number;
  start: number;
  go: () => void;
}

let usedThisTurn = 0;
let turnEndScheduled = false;
/** Per tenant, its waiting pieces in order (and so in start-tag order). */
const waiting = new Map<string, Waiting[]>();
/** The end tag of each tenant's latest piece, and the start tag of the piece let through last. */
const finish = new Map<string, number>();
let virtualTime = 0;

/** Whose body this is, for taking turns: the key's project, else the key, else the client address. */
export function tenantOf(principal: Principal, address: string): string {
  if (principal.projectId !== null) return `project:${principal.projectId}`;
  return principal.keyId !== null ? `key:${principal.keyId}` : `ip:${address}`;
}

/**
 * undefined: go ahead now. Otherwise a promise that settles when this body's turn comes; the
 * caller then does its CPU work before its next await.
 */
export function ingestSlice(bytes: number, tenant = ''): Promise<void> | undefined {
  scheduleTurnEnd();
  const start = Math.max(virtualTime, finish.get(tenant) ?? 0);
  finish.set(tenant, start + bytes);
  if (waiting.size === 0 && usedThisTurn < SLICE_BYTES) {
    usedThisTurn += bytes;
    virtualTime = start;
    forgetIdle();
    return undefined;
  }
  return new Promise<void>((go) => {
    const q = waiting.get(tenant);
    if (q) q.push({ bytes, start, go });
    else waiting.set(tenant, [{ bytes, start, go }]);
  });
}

/**
 * A turn boundary inside one request's work (after its body was let through by ingestSlice):
 * undefined, go on, unless another tenant has a body waiting; then this next piece (`bytes`
 * worth) queues by its start tag like a body. One tenant alone never waits here, nor is it
 * charged against the turn's slice twice.
 */
export function yieldToOthers(bytes: number, tenant = ''): Promise<void> | undefined {
  let others = false;
  for (const t of waiting.keys()) {
    if (t !== tenant) {
      others = true;
      break;
    }
  }
  if (!others) return undefined;
  scheduleTurnEnd();
  const start = Math.max(virtualTime, finish.get(tenant) ?? 0);
  finish.set(tenant, start + bytes);
  return new Promise<void>((go) => {
    const q = waiting.get(tenant);
    if (q) q.push({ bytes, start, go });
    else waiting.set(tenant, [{ bytes, start, go }]);
  });
}

/** The waiting piece with the lowest start tag (the smaller on a tie). */
function nextWaiting(): Waiting | undefined {
  let best: { tenant: string; head: Waiting } | undefined;
  for (const [tenant, q] of waiting) {
    const head = q[0] as Waiting;
    if (
      !best ||
      head.start < best.head.start ||
      (head.start === best.head.start && head.bytes < best.head.bytes)
    )
      best = { tenant, head };
  }
  if (!best) return undefined;
  const q = waiting.get(best.tenant) as Waiting[];
  q.shift();
  if (q.length === 0) waiting.delete(best.tenant);
  virtualTime = Math.max(virtualTime, best.head.start);
  forgetIdle();
  return best.head;
}

/** Tenants with nothing waiting whose share is used up to the virtual time have nothing to remember. */
function forgetIdle(): void {
  if (finish.size <= waiting.size + 1000) return;
  for (const [tenant, end] of finish)
    if (end <= virtualTime && !waiting.has(tenant)) finish.delete(tenant);
}

function scheduleTurnEnd(): void {
  if (turnEndScheduled) return;
  turnEndScheduled = true;
  setImmediate(endTurn);
}

/**
 * Once per turn, after the I/O poll: lets waiting bodies through with what is left of the turn's
 * slice (their work runs right after, in this turn), then the next turn starts a new slice. Set
 * from here, the next run comes after the next poll.
 */
function endTurn(): void {
  turnEndScheduled = false;
  let budget = SLICE_BYTES - usedThisTurn;
  usedThisTurn = 0;
  while (waiting.size > 0 && budget > 0) {
    const next = nextWaiting() as Waiting;
    budget -= next.bytes;
    next.go();
  }
  if (waiting.size > 0) scheduleTurnEnd();
}
