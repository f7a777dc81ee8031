/**
 * Ingest's CPU work (decoding a request body, then validating, normalising and encoding its spans:
 * about a millisecond per 100 spans) runs in slices, so the event loop keeps polling in between.
 * Requests arrive in bursts: a group commit answers many at once and their clients send the next
 * batches together. Handled back to back, 16 of them held the loop for 15-30 ms, and everything
 * else waited behind them: liveness probes, reads, live clients (hardening #8, live-load row).
 *
 * Work that starts while the current slice has time left runs at once; after SLICE_MS, requests
 * wait in arrival order and are let through one per turn of the event loop. The total work is
 * the same; it is only interleaved with everything else.
 */
const SLICE_MS = 3;

let sliceEnds = 0;
let turnMarked = false;
const waiting: (() => void)[] = [];
let pumping = false;

/**
 * undefined: go ahead now. Otherwise a promise that settles when this request's turn comes; the
 * caller then does its CPU work before its next await.
 */
export function ingestSlice(): Promise<void> | undefined {
  const now = performance.now();
  if (waiting.length === 0) {
    if (!turnMarked) {
      // A new turn of the event loop starts a new slice.
      turnMarked = true;
      sliceEnds = now + SLICE_MS;
      setImmediate(() => (turnMarked = false));
    }
    if (now < sliceEnds) return undefined;
  }
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    pump();
  });
}

/** Lets one waiting request through per turn; an immediate set here runs after the next I/O poll. */
function pump(): void {
  if (pumping) return;
  pumping = true;
  setImmediate(() => {
    pumping = false;
    const next = waiting.shift();
    if (waiting.length > 0) pump();
    next?.();
  });
}
