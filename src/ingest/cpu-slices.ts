/**
 * Ingest's CPU work (decoding a request body, then validating, normalising and encoding its spans:
 * about a millisecond per 100 KB of body) runs in slices, so the event loop keeps polling in
 * between. Requests arrive in bursts: a group commit answers many at once and their clients send
 * the next batches together. Handled back to back, 16 of them held the loop for 15-30 ms, and
 * everything else waited behind them: liveness probes, reads, live clients (hardening #8).
 *
 * A slice is SLICE_BYTES of request bodies per turn of the event loop (about 3 ms of work). Bodies
 * that arrive while the turn's slice lasts go ahead at once; the rest wait in arrival order and
 * are let through a slice per turn. The total work is the same; it is only interleaved with
 * everything else. A body larger than a slice still goes through, alone.
 */
export const SLICE_BYTES = 256 * 1024;

let usedThisTurn = 0;
let resetScheduled = false;
const waiting: { bytes: number; go: () => void }[] = [];
let pumping = false;

/**
 * undefined: go ahead now. Otherwise a promise that settles when this body's turn comes; the
 * caller then does its CPU work before its next await.
 */
export function ingestSlice(bytes: number): Promise<void> | undefined {
  if (waiting.length === 0 && usedThisTurn < SLICE_BYTES) {
    usedThisTurn += bytes;
    if (!resetScheduled) {
      // The next check phase ends this turn's slice: bodies read by the next poll get a new one.
      resetScheduled = true;
      setImmediate(() => {
        resetScheduled = false;
        usedThisTurn = 0;
      });
    }
    return undefined;
  }
  return new Promise<void>((go) => {
    waiting.push({ bytes, go });
    pump();
  });
}

/** Lets a slice of waiting bodies through; an immediate set from here runs after the next I/O poll. */
function pump(): void {
  if (pumping) return;
  pumping = true;
  setImmediate(() => {
    pumping = false;
    let used = 0;
    while (waiting.length > 0 && used < SLICE_BYTES) {
      const next = waiting.shift() as (typeof waiting)[number];
      used += next.bytes;
      next.go();
    }
    if (waiting.length > 0) pump();
  });
}
