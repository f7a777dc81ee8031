import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Config } from '../config/types.ts';
import { startPeriodic } from '../scale/jobs/periodic.ts';
import type { Db } from '../store/db.ts';
import type { LineageCache } from '../store/lineage-cache.ts';
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
  /** Told before and after the deletions, which remove old lineage rows. */
  lineage: Pick<LineageCache, 'changing'> | null = null,
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
      const { droppedPartitions, defaultRowsDeleted } = await retireSpans(
        db,
        new Date(Date.now() - retention.spansDays * 86_400_000),
        lineage,
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

/**
 * deleteSpansBefore, with the lineage cache (store/lineage-cache.ts) told before and after: it
 * deletes lineage rows, so no kept sum may outlive it.
 */
export async function retireSpans(
  db: Db,
  cutoff: Date,
  lineage: Pick<LineageCache, 'changing'> | null,
): ReturnType<typeof deleteSpansBefore> {
  const changing = lineage?.changing();
  try {
    return await deleteSpansBefore(db, cutoff);
  } finally {
    changing?.done();
  }
}
