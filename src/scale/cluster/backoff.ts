/** Restart delays for a worker that keeps dying: 1 s, doubling to 30 s; back to 1 s after a good run. */
export const FIRST_DELAY_MS = 1000;
export const MAX_DELAY_MS = 30_000;
/** A worker that stayed up this long was healthy; its next death starts the backoff over. */
export const HEALTHY_UPTIME_MS = 60_000;

export interface Backoff {
  /** Wait this long before forking the replacement. */
  delayMs: number;
  /** The delay to use if the replacement dies too (pass it back next time). */
  nextMs: number;
}

/** `pendingMs`: the `nextMs` from the previous death of this slot (FIRST_DELAY_MS for the first). */
export function restartBackoff(pendingMs: number, uptimeMs: number): Backoff {
  const delayMs = uptimeMs >= HEALTHY_UPTIME_MS ? FIRST_DELAY_MS : pendingMs;
  return { delayMs, nextMs: Math.min(delayMs * 2, MAX_DELAY_MS) };
}
