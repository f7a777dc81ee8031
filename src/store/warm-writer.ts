import type { Sql } from 'postgres';
import { genericPlans } from './early-transaction.ts';
import { ingestQuery } from './ingest-query.ts';
import { rollupRows } from './rollup-rows.ts';

/**
 * The writer's first statements on each of its connections (open-store.ts writerPool), paid once
 * the server is ready instead of by the first group commits of a load: the rollup upsert parsed,
 * prepared and given its generic plan (early-transaction.ts GENERIC_PLANS), which loads the
 * catalog entries of the rollup tables and of spans, and a plan of a read of spans, which loads
 * those of every partition of spans and of their indexes, where the COPY routes its rows. Before,
 * each of the 10 connections the commits went round paid these at its first commit: 32-41 ms of
 * the backend's CPU at load 11 (docs/benchmarks.md, the writer's plans).
 *
 * Each connection runs one transaction that writes nothing (the upsert with no rows, no rollup
 * rows) and is rolled back. All of them begin at once, so the pool opens each of its connections.
 * A commit that arrives meanwhile waits for a connection's warm-up transaction (a few ms). A
 * failure (the database down) ends the warm-up quietly: it is an optimisation only.
 */
export async function warmWriter(writer: Sql, connections: number): Promise<WarmWriterResult> {
  const upsert = ingestQuery('[]', 0, rollupRows([]));
  let warmed = 0;
  let error: unknown;
  await Promise.all(
    Array.from({ length: Math.max(1, connections) }, () =>
      writer
        .begin(async (tx) => {
          genericPlans(tx);
          // Prepared as the commits prepare it (span-copy.ts): the same text and parameter types.
          await tx.unsafe(upsert.sql, upsert.params as never[], { prepare: true });
          await tx.unsafe(PARTITIONS);
          warmed++;
          throw ROLLED_BACK;
        })
        .catch((err: unknown) => {
          if (err !== ROLLED_BACK) error ??= err;
        }),
    ),
  );
  return error === undefined ? { connections: warmed } : { connections: warmed, error };
}

export interface WarmWriterResult {
  /** Connections whose warm-up transaction ran to its end. */
  connections: number;
  error?: unknown;
}

/** Planned, not run: the planner opens every partition of spans and each of its indexes. */
const PARTITIONS = 'explain select span_id from spans';

const ROLLED_BACK = new Error('writer warm-up rolled back');
