/**
 * Runs `task` now and then every `everyMs`, never twice at once; stop() cancels the timer and
 * waits for a run in progress. Failures go to `onError`: a background job must not crash serve.
 */
export function startPeriodic(
  task: () => Promise<void>,
  everyMs: number,
  onError: (err: unknown) => void,
): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  const tick = () => {
    if (busy) return;
    busy = true;
    running = task()
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
      clearInterval(timer);
      await running;
    },
  };
}
