import type { Logger } from 'pino';
import type { Db } from '../store/db.ts';
import { deleteSpansBefore } from '../store/spans-repo.ts';

const EVERY_MS = 3_600_000;

/** Span retention (decisions §3: 30 days by default, `retention.spans_days`): at start, then hourly. */
export function startSpanRetention(db: Db, days: number, logger: Logger): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const prune = () => {
    running = deleteSpansBefore(db, new Date(Date.now() - days * 86_400_000)).then(
      (n) => {
        if (n > 0) logger.info({ spans: n, days }, 'span retention: old spans removed');
      },
      (err: unknown) => logger.error({ err }, 'span retention failed'),
    );
  };
  prune();
  const timer = setInterval(prune, EVERY_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
