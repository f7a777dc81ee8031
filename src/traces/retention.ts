import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Config } from '../config/types.ts';
import { startPeriodic } from '../scale/jobs/periodic.ts';
import type { Db } from '../store/db.ts';
import { ensureDayPartitions } from '../store/partitions.ts';
import { deleteSpansBefore } from '../store/spans-repo.ts';

/**
 * Span partition upkeep and retention (docs/ingest.md#storage-partitions-and-retention: 30 days by default, `retention.spans_days`),
 * at start and then hourly: create the day partitions for today .. today + partitionsAheadDays,
 * drop the day partitions entirely older than the retention, delete old rows of the default
 * partition, and the rollup rows older than the retention. The first pass's deletions wait
 * `deleteAfterMs` after its partitions are made (src/main.ts: past the server's first requests).
 */
export function startSpanRetention(
  db: Db,
  retention: Config['retention'],
  logger: Logger,
  deleteAfterMs = 0,
): { stop(): Promise<void> } {
  let first = true;
  return startPeriodic(
    async (signal) => {
      const created = await ensureDayPartitions(db, new Date(), retention.partitionsAheadDays);
      if (created.length > 0) logger.info({ partitions: created }, 'span partitions created');
      if (first && deleteAfterMs > 0)
        await sleep(deleteAfterMs, undefined, { signal, ref: false }).catch(() => {});
      first = false;
      if (signal.aborted) return;
      const { droppedPartitions, defaultRowsDeleted } = await deleteSpansBefore(
        db,
        new Date(Date.now() - retention.spansDays * 86_400_000),
      );
      if (droppedPartitions.length > 0)
        logger.info(
          { partitions: droppedPartitions, days: retention.spansDays },
          'span retention: old partitions dropped',
        );
      if (defaultRowsDeleted > 0)
        logger.info(
          { spans: defaultRowsDeleted, days: retention.spansDays },
          'span retention: old spans removed from the default partition',
        );
    },
    3_600_000,
    (err) => logger.error({ err }, 'span retention failed'),
  );
}
