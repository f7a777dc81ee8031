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
 */
export const SLICE_BYTES = 128 * 1024;

let usedThisTurn = 0;
let turnEndScheduled = false;
const waiting: { bytes: number; go: () => void }[] = [];

/**
 * undefined: go ahead now. Otherwise a promise that settles when this body's turn comes; the
 * caller then does its CPU work before its next await.
 */
export function ingestSlice(bytes: number): Promise<void> | undefined {
  scheduleTurnEnd();
  if (waiting.length === 0 && usedThisTurn < SLICE_BYTES) {
    usedThisTurn += bytes;
    return undefined;
  }
  return new Promise<void>((go) => waiting.push({ bytes, go }));
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
  while (waiting.length > 0 && budget > 0) {
    const next = waiting.shift() as (typeof waiting)[number];
    budget -= next.bytes;
    next.go();
  }
  if (waiting.length > 0) scheduleTurnEnd();
}
