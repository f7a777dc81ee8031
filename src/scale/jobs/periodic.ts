/**
 * Runs `task` now (or after `firstAfterMs`) and then every `everyMs` from that first run, never
 * twice at once; stop() cancels the timers, aborts `signal` and waits for a run in progress. A
 * task of several steps checks the signal between them, so a server stopped during its first pass
 * stops after the step in progress (each a statement or transaction of its own: nothing is left
 * half-written) instead of after the whole pass. Failures go to `onError`: a background job must
 * not crash serve.
 */
export function startPeriodic(
  task: (signal: AbortSignal) => Promise<void>,
  everyMs: number,
  onError: (err: unknown) => void,
  firstAfterMs = 0,
): { stop(): Promise<void> } {
  const abort = new AbortController();
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  const tick = () => {
    if (busy || abort.signal.aborted) return;
    busy = true;
    running = task(abort.signal)
      .catch(onError)
      .finally(() => {
        busy = false;
      });
  };
  // The repeats count from the first run: a first run deferred by a whole period would otherwise
  // meet the interval's first tick and run twice.
  let timer: NodeJS.Timeout | undefined;
  const begin = () => {
    tick();
    timer = setInterval(tick, everyMs).unref();
  };
  const first = firstAfterMs > 0 ? setTimeout(begin, firstAfterMs).unref() : (begin(), undefined);
  return {
    stop: async () => {
      abort.abort();
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * Starts `start`'s jobs after `ms`; stop() before then starts none, and after, stops them. For
 * background passes whose first run may wait a moment past start-up (src/main.ts).
 */
export function startLater(
  ms: number,
  start: () => { stop(): Promise<void> }[],
): { stop(): Promise<void> } {
  let jobs: { stop(): Promise<void> }[] = [];
  const timer = setTimeout(() => (jobs = start()), ms).unref();
  return {
    stop: async () => {
      clearTimeout(timer);
      await Promise.all(jobs.map((job) => job.stop()));
    },
  };
}
