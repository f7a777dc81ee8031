/**
 * Bytes per span on disk: N spans of one payload profile loaded through a real server into a fresh
 * PostgreSQL database, then the size of the spans table with its indexes and TOAST (summed over its
 * partitions when it is partitioned), the growth of the whole database (rollups included) and the
 * WAL written meanwhile (what a replica or a backup receives). docs/scaling.md works from these.
 */
import postgres from 'postgres';
import type { PgCluster } from '../test/helpers/pg-cluster.ts';
import type { PayloadProfile } from './genai-profile.ts';
import { runCell } from './load.ts';
import { Template } from './payloads.ts';
import { startServerProc, type ServerOptions } from './server-proc.ts';

// pg_partition_tree lists a partitioned table and its partitions but nothing for a plain table; the
// partitioned parent itself has no storage, so adding it never counts anything twice.
export interface DiskResult {
  profile: PayloadProfile;
  /** Spans in the table afterwards. */
  spans: number;
  bodyBytesPerSpan: number;
  /** Table + indexes + TOAST of spans (all partitions). */
  spansTotalBytes: number;
  spansHeapBytes: number;
  spansIndexBytes: number;
  /** Growth of pg_database_size during the load: spans plus every rollup table. */
  databaseBytes: number;
  walBytes: number;
  loadSpansPerSec: number;
}

const BATCH = 500;

export async function runDiskRow(
  cluster: PgCluster,
  profile: PayloadProfile,
  spans: number,
  server: Pick<ServerOptions, 'rateLimits' | 'nodeFlags'>,
  seq: { nextSeq: (n: number) => number; t0: number },
  progress: (msg: string) => void,
): Promise<DiskResult> {
  const url = await cluster.createDatabase(`bench_disk_${profile}_${Date.now()}`);
  const proc = await startServerProc({ databaseUrl: url, ...server });
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const before = await sizes(sql);
    progress(
      `disk: loading ${spans.toLocaleString('en-US')} ${profile} spans (native, batches of ${BATCH})`,
    );
    const template = Template.build('native', BATCH, profile);
    const r = await runCell({ httpPort: proc.httpPort, grpcPort: proc.grpcPort }, template, {
      concurrency: 8,
      warmupMs: 0,
      durationMs: 3_600_000,
      maxSpans: spans,
      requestTimeoutMs: 30_000,
      nextSeq: seq.nextSeq,
      t0: seq.t0,
    });
    await sql`checkpoint`;
    const after = await sizes(sql);
    const [spanSize] = (await sql`
      select coalesce(sum(pg_total_relation_size(relid)), 0)::bigint::text as total,
             coalesce(sum(pg_relation_size(relid)), 0)::bigint::text as heap,
             coalesce(sum(pg_indexes_size(relid)), 0)::bigint::text as idx
        from (select relid from pg_partition_tree('spans') union select 'spans'::regclass) t`) as unknown as [
      { total: string; heap: string; idx: string },
    ];
    return {
      profile,
      spans: after.count,
      bodyBytesPerSpan: template.byteLength / BATCH,
      spansTotalBytes: Number(spanSize.total),
      spansHeapBytes: Number(spanSize.heap),
      spansIndexBytes: Number(spanSize.idx),
      databaseBytes: after.db - before.db,
      walBytes: Number(after.lsn - before.lsn),
      loadSpansPerSec: r.spansPerSec,
    };
  } finally {
    await sql.end({ timeout: 5 });
    await proc.stop();
    proc.dispose();
  }
}

async function sizes(sql: postgres.Sql): Promise<{ db: number; lsn: bigint; count: number }> {
  const [row] = (await sql`
    select pg_database_size(current_database())::text as db,
           (pg_current_wal_lsn() - '0/0'::pg_lsn)::text as lsn,
           (select count(*) from spans)::int as n`) as unknown as [
    { db: string; lsn: string; n: number },
  ];
  return { db: Number(row.db), lsn: BigInt(row.lsn.split('.')[0] as string), count: row.n };
}

export function formatDiskReport(rows: readonly DiskResult[]): string {
  const per = (bytes: number, r: DiskResult) =>
    r.spans > 0 ? Math.round(bytes / r.spans).toLocaleString('en-US') : '-';
  const lines = [
    '',
    'Disk per span (PostgreSQL, spans loaded through the server into a fresh database, native batches of 500):',
  ];
  lines.push(
    'profile  spans     body B/span  spans table B/span  heap  indexes  database B/span  WAL B/span',
  );
  for (const r of rows) {
    lines.push(
      `${r.profile.padEnd(7)}  ${r.spans.toLocaleString('en-US').padStart(8)}  ${Math.round(r.bodyBytesPerSpan).toLocaleString('en-US').padStart(11)}  ` +
        `${per(r.spansTotalBytes, r).padStart(18)}  ${per(r.spansHeapBytes, r).padStart(4)}  ${per(r.spansIndexBytes, r).padStart(7)}  ` +
        `${per(r.databaseBytes, r).padStart(15)}  ${per(r.walBytes, r).padStart(10)}`,
    );
  }
  lines.push(
    "spans table: pg_total_relation_size over pg_partition_tree('spans') (heap + TOAST + the indexes); heap: main fork",
  );
  lines.push(
    'only (large values live in TOAST); database: growth of pg_database_size (spans and every rollup); WAL: bytes written.',
  );
  return `${lines.join('\n')}\n`;
}
