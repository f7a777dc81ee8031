/**
 * Runs `task` now and then every `everyMs`, never twice at once; stop() cancels the timer, aborts
 * `signal` and waits for a run in progress. A task of several steps checks the signal between them,
 * so a server stopped during its first pass stops after the step in progress (each a statement or
 * transaction of its own: nothing is left half-written) instead of after the whole pass. Failures go
 * to `onError`: a background job must not crash serve.
 */
export function startPeriodic(
  task: (signal: AbortSignal) => Promise<void>,
  everyMs: number,
  onError: (err: unknown) => void,
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
  tick();
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return {
    stop: async () => {
      abort.abort();
      clearInterval(timer);
      await running;
    },
  };
}
