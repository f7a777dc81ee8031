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
 * Waiting bodies are let through in turn by tenant (project or key, see tenantOf), each tenant's
 * in arrival order: a tenant sending three 10,000-span bodies at once delays another's next body
 * by at most one of them, not all three (issue 25).
 */
export const SLICE_BYTES = 128 * 1024;

interface Waiting {
  bytes: number;
  go: () => void;
}

let usedThisTurn = 0;
let turnEndScheduled = false;
/** Per tenant, in the order they take their turns (a tenant served goes to the back). */
const waiting = new Map<string, Waiting[]>();

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
  if (waiting.size === 0 && usedThisTurn < SLICE_BYTES) {
    usedThisTurn += bytes;
    return undefined;
  }
  return new Promise<void>((go) => {
    const q = waiting.get(tenant);
    if (q) q.push({ bytes, go });
    else waiting.set(tenant, [{ bytes, go }]);
  });
}

/** The first waiting body of the tenant whose turn it is; that tenant goes to the back. */
function nextWaiting(): Waiting | undefined {
  for (const [tenant, q] of waiting) {
    const next = q.shift();
    waiting.delete(tenant);
    if (q.length > 0) waiting.set(tenant, q);
    return next;
  }
  return undefined;
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
