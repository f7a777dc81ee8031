/**
 * The `otel-real` row (issue 28, target 1): real OpenTelemetry exporter traffic (otel-traffic.ts)
 * into a Spyglass server child process on PostgreSQL, with **rate limits off**
 * (SPYGLASS_RATE_LIMITS=off: one bench client is far past any per-client limit), beside a raw COPY
 * of the same stored rows, read back from `spans` after the run, into a freshly migrated database
 * (the same partitioned, same-indexed `spans`), in the same run. Per protocol: spans/s, the ratio
 * to that COPY, PostgreSQL CPU per span against per COPY row, Spyglass CPU per span, and every
 * acknowledged span counted stored.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import postgres from 'postgres';
import type { PgCluster } from '../test/helpers/pg-cluster.ts';
import { openStore } from '../src/store/open-store.ts';
import { noDelaySocket } from './copy-bench.ts';
import {
  BatchFactory,
  driveExports,
  makeExporter,
  type ExportRun,
  type OtelProtocol,
} from './otel-traffic.ts';
import {
  enablePgDiag,
  formatPgDiag,
  markPgDiag,
  PgCpuSampler,
  readPgDiag,
  startPerf,
} from './otel-pg-diag.ts';
import { cpuDelta, cpuSnapshot, postmasterPid } from './proc-stats.ts';
import { startServerProc } from './server-proc.ts';
import type { UploadRecord } from './upload-trace.ts';

export interface OtelRealOptions {
  protocols: readonly OtelProtocol[];
  concurrency: number;
  batch: number;
  warmupMs: number;
  durationMs: number;
  /** Rows per COPY transaction. */
  copyGroup: number;
  /** At most this many stored rows are copied. */
  copyRows: number;
  /**
   * CHECKPOINT before each cell (default): one quiet-machine cell writes ~350 MB of WAL, so with
   * the default max_wal_size (1 GB: a checkpoint once ~540 MB were written) the second cell used to
   * start one, and pay its full-page writes, alone.
   */
  checkpoint?: boolean;
  nodeFlags?: string[];
  /** Write a V8 CPU profile of the server process into this directory (`--cpu-prof`). */
  cpuProfDir?: string | undefined;
  /** Another build's bin/spyglass.js (before/after comparisons); default this checkout's. */
  serverBin?: string | undefined;
  /** Print where PostgreSQL's CPU goes in each cell (otel-pg-diag.ts; restarts the cluster). */
  pgDiag?: boolean;
  /** Settings for the cluster with pgDiag (ALTER SYSTEM), e.g. `autovacuum = off`. */
  pgSettings?: string[];
  /** perf record of each cell into this directory, with a report of PostgreSQL's functions. */
  perfDir?: string | undefined;
}

export interface OtelCell extends ExportRun {
  protocol: OtelProtocol;
  spansPerSec: number;
  serverUsPerSpan: number;
  postgresUsPerSpan: number;
  /** The bench process's CPU per span: the exporter's serialisation and its HTTP or gRPC client. */
  exporterUsPerSpan: number;
  /**
   * Headers to last byte of an export's body at the server (bench/upload-trace.ts), p50 and p95 ms,
   * warm-up included; NaN when the trace is missing.
   */
  uploadP50Ms: number;
  uploadP95Ms: number;
  /** Headers to the answer at the server, p50 ms (the rest of the export latency is the exporter's). */
  answerP50Ms: number;
  /** Acknowledged spans per write transaction in the cluster (≈ the writer's mean group). */
  spansPerCommit: number;
  /**
   * What the database did besides this cell's inserts, during the cell (warm-up included):
   * checkpoints started (timed or requested), WAL bytes per acknowledged span (full-page images
   * after a checkpoint make it larger), and ANALYZE/VACUUM runs on `spans`' partitions (the
   * server's statistics keeper or autovacuum). The cells run one after the other on one database.
   */
  db: DbActivity;
}

export interface DbActivity {
  checkpoints: number;
  walBytesPerSpan: number;
  maintenance: number;
  /** Rows in `spans` when the cell started. */
  rowsBefore: number;
}

export interface OtelRealResult {
  bytesPerSpan: number;
  cells: OtelCell[];
  acked: number;
  stored: number;
  copy: { rows: number; rowsPerSec: number; pgUsPerRow: number; group: number };
  loadAverage: { start: number[]; end: number[] };
}

export async function runOtelReal(
  cluster: PgCluster,
  o: OtelRealOptions,
  progress: (msg: string) => void,
): Promise<OtelRealResult> {
  if (o.pgDiag) await enablePgDiag(cluster, o.pgSettings);
  const loadStart = loadavg();
  const pgPid = postmasterPid(cluster.dataDir);
  const sampler = o.pgDiag && pgPid !== null ? new PgCpuSampler(pgPid) : undefined;
  const databaseUrl = await cluster.createDatabase(`bench_otel_real_${Date.now()}`);
  const factory = new BatchFactory(o.batch);
  progress(
    `otel-real: ${o.batch}-span exports recorded through the SDK, ${factory.bytesPerSpan.toFixed(0)} B/span in protobuf; server with rate limits off`,
  );
  const traceDir = mkdtempSync(join(tmpdir(), 'spyglass-upload-'));
  const traceFile = join(traceDir, 'upload.json');
  const server = await startServerProc({
    databaseUrl,
    rateLimits: 'off',
    // tsx's loader first, so the TypeScript preload can run (the server itself runs compiled).
    nodeFlags: [
      `--import=${import.meta.resolve('tsx/esm')}`,
      `--import=${new URL('./upload-trace.ts', import.meta.url).href}`,
      ...(o.nodeFlags ?? []),
    ],
    env: { SPYGLASS_BENCH_UPLOAD_TRACE: traceFile },
    ...(o.cpuProfDir ? { cpuProfDir: o.cpuProfDir } : {}),
    ...(o.serverBin ? { bin: o.serverBin } : {}),
  });
  const cells: OtelCell[] = [];
  const probe = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  let result: OtelRealResult;
  try {
    for (const protocol of o.protocols) {
      const exporter = makeExporter(protocol, server.httpPort, server.grpcPort, 30_000);
      if (o.checkpoint ?? true) await probe`checkpoint`;
      const xidBefore = await nextXid(probe);
      const dbBefore = await dbState(probe);
      const diagMark = sampler ? await markPgDiag(probe, sampler, cluster.dataDir) : undefined;
      // CPU per span over the whole cell, warm-up included, per acknowledged span (as the ingest
      // cells count it): robust when a loaded machine completes few exports in the window.
      const stopPerf = o.perfDir ? startPerf(o.perfDir, `${cells.length + 1}-${protocol}`) : null;
      const before = cpuSnapshot(server.pid, pgPid);
      const ownBefore = process.cpuUsage();
      const run = await driveExports(exporter, factory, o, () => undefined);
      if (stopPerf) progress(`perf report of ${protocol}: ${await stopPerf()}`);
      const cpu = cpuDelta(before, cpuSnapshot(server.pid, pgPid));
      const own = process.cpuUsage(ownBefore);
      await exporter.shutdown();
      const diag =
        sampler && diagMark
          ? await readPgDiag(probe, sampler, cluster.dataDir, diagMark, run.ackedTotal)
          : undefined;
      const commits = (await nextXid(probe)) - xidBefore;
      const dbAfter = await dbState(probe);
      const perSpan = (ms: number) =>
        run.ackedTotal > 0 ? (ms * 1000) / run.ackedTotal : Number.NaN;
      const cell: OtelCell = {
        ...run,
        protocol,
        spansPerSec: (run.spans / run.windowMs) * 1000,
        serverUsPerSpan: perSpan(cpu.serverMs),
        postgresUsPerSpan: perSpan(cpu.postgresMs),
        exporterUsPerSpan: perSpan((own.user + own.system) / 1000),
        uploadP50Ms: Number.NaN,
        uploadP95Ms: Number.NaN,
        answerP50Ms: Number.NaN,
        spansPerCommit: commits > 0 ? run.ackedTotal / commits : Number.NaN,
        db: {
          checkpoints: dbAfter.checkpoints - dbBefore.checkpoints,
          walBytesPerSpan:
            run.ackedTotal > 0 ? (dbAfter.wal - dbBefore.wal) / run.ackedTotal : Number.NaN,
          maintenance: dbAfter.maintenance - dbBefore.maintenance,
          rowsBefore: dbBefore.rows,
        },
      };
      cells.push(cell);
      if (diag) progress(formatPgDiag(protocol, diag, run.ackedTotal));
      progress(
        `otel-real ${protocol}: ${Math.round(cell.spansPerSec)} spans/s, export p50 ${run.p50Ms.toFixed(0)} ms p95 ${run.p95Ms.toFixed(0)} ms, server ${cell.serverUsPerSpan.toFixed(1)} µs/span, exporter ${cell.exporterUsPerSpan.toFixed(1)} µs/span, ${cell.spansPerCommit.toFixed(0)} spans/commit, PostgreSQL ${cell.postgresUsPerSpan.toFixed(1)} µs/span; ${cell.db.checkpoints} checkpoints, ${cell.db.walBytesPerSpan.toFixed(0)} WAL B/span, ${cell.db.maintenance} analyze/vacuum of spans, ${cell.db.rowsBefore} rows before${run.failedExports ? `, ${run.failedExports} failed exports` : ''}`,
      );
    }
    const [{ n }] = (await probe`select count(*)::int as n from spans`) as unknown as [
      { n: number },
    ];
    const acked = cells.reduce((a, c) => a + c.ackedTotal, 0);
    if (n !== acked) progress(`WARNING: otel-real acknowledged ${acked} spans but stored ${n}`);
    progress(`otel-real: COPY of up to ${o.copyRows} stored rows into a same-indexed spans`);
    const copy = await copyStoredRows(cluster, probe, o.copyRows, o.copyGroup, pgPid);
    progress(
      `otel-real COPY: ${Math.round(copy.rowsPerSec)} rows/s, PostgreSQL ${copy.pgUsPerRow.toFixed(1)} µs/row`,
    );
    result = {
      bytesPerSpan: factory.bytesPerSpan,
      cells,
      acked,
      stored: n,
      copy,
      loadAverage: { start: loadStart, end: loadavg() },
    };
  } finally {
    sampler?.stop();
    await probe.end({ timeout: 5 });
    const code = await server.stop();
    if (code !== 0) progress(`otel-real server exited with ${code}:\n${server.logTail(15)}`);
    server.dispose();
  }
  addUploads(result.cells, traceFile);
  rmSync(traceDir, { recursive: true, force: true });
  return result;
}

/** Each cell's upload percentiles from the server's trace (HTTP/1.1 exports, gRPC exports). */
function addUploads(cells: OtelCell[], file: string): void {
  if (!existsSync(file)) return;
  const rec = JSON.parse(readFileSync(file, 'utf8')) as UploadRecord;
  for (const cell of cells) {
    const rows = cell.protocol === 'otlp-grpc' ? rec.grpc : rec.http;
    const pct = (values: number[], p: number) => {
      const v = values.filter((ms) => !Number.isNaN(ms)).sort((a, b) => a - b);
      return v[Math.min(v.length - 1, Math.floor(p * v.length))] ?? Number.NaN;
    };
    const uploads = rows.map(([upload]) => upload);
    cell.uploadP50Ms = pct(uploads, 0.5);
    cell.uploadP95Ms = pct(uploads, 0.95);
    cell.answerP50Ms = pct(
      rows.map(([, total]) => total),
      0.5,
    );
  }
}

/**
 * The stored rows (every column, as stored) copied out of the ingest database and into a fresh,
 * migrated one, `group` rows per transaction, serially: the database-side ceiling for exactly
 * these rows. Only the COPY IN is timed.
 */
async function copyStoredRows(
  cluster: PgCluster,
  from: postgres.Sql,
  maxRows: number,
  group: number,
  pgPid: number | null,
): Promise<OtelRealResult['copy']> {
  const url = await cluster.createDatabase(`bench_otel_copy_${Date.now()}`);
  const store = await openStore({ databaseUrl: url, dataDir: 'memory://', poolSize: 1 });
  await store.close();
  const chunks: Buffer[] = [];
  const out = await from
    .unsafe(`copy (select * from spans order by started_at, span_id limit ${maxRows}) to stdout`)
    .readable();
  out.on('data', (c: Buffer) => chunks.push(c));
  await finished(out);
  // Text COPY escapes newlines inside values: one line is one row.
  const lines = Buffer.concat(chunks).toString('utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const to = postgres(url, { max: 1, onnotice: () => {}, ...{ socket: noDelaySocket } });
  try {
    let ms = 0;
    const before = cpuSnapshot(-1, pgPid);
    for (let i = 0; i < lines.length; i += group) {
      const text = `${lines.slice(i, i + group).join('\n')}\n`;
      const t = performance.now();
      const stream = await to.unsafe('copy spans from stdin').writable();
      stream.end(text);
      await finished(stream);
      ms += performance.now() - t;
    }
    const cpu = cpuDelta(before, cpuSnapshot(-1, pgPid));
    const [{ n }] = (await to`select count(*)::int as n from spans`) as unknown as [{ n: number }];
    if (n !== lines.length) throw new Error(`COPY stored ${n} of ${lines.length} rows`);
    return {
      rows: n,
      rowsPerSec: (n / ms) * 1000,
      pgUsPerRow: (cpu.postgresMs * 1000) / n,
      group,
    };
  } finally {
    await to.end({ timeout: 5 });
  }
}

/** Counters for DbActivity: checkpoints, the WAL position, maintenance runs and rows of `spans`. */
async function dbState(
  sql: postgres.Sql,
): Promise<{ checkpoints: number; wal: number; maintenance: number; rows: number }> {
  const [row] = (await sql`
    select (select checkpoints_timed + checkpoints_req from pg_stat_bgwriter)::float8 as checkpoints,
           (pg_current_wal_lsn() - '0/0'::pg_lsn)::float8 as wal,
           (select coalesce(sum(analyze_count + autoanalyze_count + vacuum_count + autovacuum_count), 0)
              from pg_stat_user_tables where relname like 'spans%')::float8 as maintenance,
           (select count(*) from spans)::float8 as rows`) as unknown as [
    { checkpoints: number; wal: number; maintenance: number; rows: number },
  ];
  return row;
}

/** The next transaction id to be assigned in the cluster (reading it assigns none). */
async function nextXid(sql: postgres.Sql): Promise<number> {
  const [row] =
    (await sql`select pg_snapshot_xmax(pg_current_snapshot())::text::bigint as x`) as unknown as [
      { x: string },
    ];
  return Number(row.x);
}

export function formatOtelReal(r: OtelRealResult): string {
  const f = (n: number, d = 0) =>
    n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
  const lines = [
    '',
    `otel-real: real OpenTelemetry SDK exporters (BasicTracerProvider spans, OTLPTraceExporter), 16 exports of 512 spans in flight, ${f(r.bytesPerSpan)} B/span in protobuf; PostgreSQL; rate limits off (SPYGLASS_RATE_LIMITS=off)`,
    `load average at start ${r.loadAverage.start.map((x) => x.toFixed(2)).join(' ')}, at end ${r.loadAverage.end.map((x) => x.toFixed(2)).join(' ')}`,
    `raw COPY of ${f(r.copy.rows)} of the stored rows (groups of ${f(r.copy.group)}) into a same-indexed spans: ${f(r.copy.rowsPerSec)} rows/s, PostgreSQL ${f(r.copy.pgUsPerRow, 1)} µs/row`,
    '| protocol | spans/s | of COPY | PostgreSQL µs/span | vs COPY µs/row | Spyglass µs/span | exporter µs/span | spans/commit | export p50 / p95 ms | upload p50 / p95 ms | server answer p50 ms | rows before | checkpoints | WAL B/span | analyze/vacuum | failed exports |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...r.cells.map(
      (c) =>
        `| ${c.protocol} | ${f(c.spansPerSec)} | ${f(c.spansPerSec / r.copy.rowsPerSec, 2)} | ${f(c.postgresUsPerSpan, 1)} | ${f(c.postgresUsPerSpan / r.copy.pgUsPerRow, 2)}× | ${f(c.serverUsPerSpan, 1)} | ${f(c.exporterUsPerSpan, 1)} | ${f(c.spansPerCommit)} | ${f(c.p50Ms)} / ${f(c.p95Ms)} | ${f(c.uploadP50Ms, 1)} / ${f(c.uploadP95Ms, 1)} | ${f(c.answerP50Ms)} | ${f(c.db.rowsBefore)} | ${c.db.checkpoints} | ${f(c.db.walBytesPerSpan)} | ${c.db.maintenance} | ${c.failedExports} |`,
    ),
    `acknowledged ${f(r.acked)}, stored ${f(r.stored)}: ${r.acked === r.stored ? 'every acknowledged span stored' : 'MISMATCH'}`,
    'targets (issue 28): OTLP/HTTP protobuf ≥ 0.7 of COPY; PostgreSQL µs/span ≤ 2× COPY µs/row',
    '',
  ];
  return lines.join('\n');
}
