import type { Logger } from 'pino';
import { startPeriodic } from '../jobs/periodic.ts';
import type { Db } from '../store/db.ts';
import { deleteSpansBefore } from '../store/spans-repo.ts';

/** Span retention (decisions §3: 30 days by default, `retention.spans_days`): at start, then hourly. */
export function startSpanRetention(db: Db, days: number, logger: Logger): { stop(): Promise<void> } {
  return startPeriodic(
    async () => {
      const n = await deleteSpansBefore(db, new Date(Date.now() - days * 86_400_000));
      if (n > 0) logger.info({ spans: n, days }, 'span retention: old spans removed');
    },
    3_600_000,
    (err) => logger.error({ err }, 'span retention failed'),
  );
}
