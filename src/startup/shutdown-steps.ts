import type { Logger } from 'pino';

/** How long a shutdown step may take before the log names it (and again every period after). */
export const SLOW_STEP_MS = 10_000;

/**
 * Runs the steps of a shutdown one at a time and, while one takes longer than SLOW_STEP_MS, warns
 * which one the process is waiting on: an operator whose stop hangs sees where, not just silence.
 */
export function shutdownSteps(logger: Logger, slowMs = SLOW_STEP_MS) {
  let current = '';
  let detail: (() => unknown) | undefined;
  let since = Date.now();
  const watchdog = setInterval(() => {
    const waitedMs = Date.now() - since;
    if (waitedMs >= slowMs)
      logger.warn(
        { step: current, waitedMs, on: detail?.() },
        `shutdown still waiting on: ${current}`,
      );
  }, slowMs / 2);
  watchdog.unref();
  return {
    /** `waitingOn` says what the step waits for (logged with the warning). */
    async run<T>(step: string, work: () => Promise<T>, waitingOn?: () => unknown): Promise<T> {
      current = step;
      detail = waitingOn;
      since = Date.now();
      logger.debug({ step }, 'shutdown step');
      return work();
    },
    done(): void {
      clearInterval(watchdog);
    },
  };
}
