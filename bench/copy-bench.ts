/**
 * Database-side ceilings, measured straight against PostgreSQL (no HTTP, no server): a raw COPY of
 * the benchmark's rows into a freshly migrated, fully indexed `spans` table, next to the insert the
 * writer uses (json_populate_recordset, both through src/store/spans-repo.ts and with a prebuilt
 * parameter) and a COPY-into-temp-table + INSERT ... SELECT ... ON CONFLICT DO NOTHING variant.
 * Groups are committed one at a time, like the group-commit writer does.
 */
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/postgres-js';
import type { Db } from '../src/store/db.ts';
import { openStore } from '../src/store/open-store.ts';
import * as schema from '../src/store/schema.ts';
import { insertWithRollups } from '../src/store/rollup-sql.ts';
import { insertSpans } from '../src/store/spans-repo.ts';
import type { Span } from '../src/model/span.ts';
import { cpuDelta, cpuSnapshot } from './proc-stats.ts';
import {
  batchShapes,
  rowSpans,
  SPAN_COLUMNS,
  toCopyText,
  toJsonRow,
  type RowSpan,
} from './payloads.ts';

export type InsertMethod = 'copy' | 'writer' | 'jsonpop' | 'stage' | 'stage-rollups';

export const METHOD_LABEL: Record<InsertMethod, string> = {
  copy: 'COPY spans FROM STDIN (raw ceiling, no dedup)',
  writer: 'insertSpans() from src (json_populate_recordset + JSON.stringify)',
  jsonpop: 'json_populate_recordset, prebuilt JSON parameter',
  stage: 'COPY to temp table + INSERT ... ON CONFLICT DO NOTHING',
  'stage-rollups': "COPY to temp table + the writer's statement (rollups, health tags)",
};

/**
 * The writer's own statement (src/store/rollup-sql.ts) with its `input` read from the staging
 * table instead of json_populate_recordset; null if that statement no longer has the expected form.
 */
function stagedWriterStatement(): string | null {
  const q = new PgDialect().sqlToQuery(insertWithRollups(sql.raw(COLS), '__rows__', 0));
  const needle = /json_populate_recordset\(null::spans, \$1::json\)/;
  // $2 is the span count, bound per batch; with the rows read from the table it becomes $1.
  if (q.params.length !== 2 || !needle.test(q.sql) || !q.sql.includes('$2::int')) return null;
  return q.sql.replace(needle, 'spans_stage').replace('$2::int', '$1::int');
}

/**
 * postgres.js opens plain net.Sockets and never sets TCP_NODELAY, so Nagle's algorithm holds a
 * message's last small segment until the previous one is ACKed, and Linux delays that ACK up to
 * 40 ms: each COPY (CopyData, then a separate 5-byte CopyDone) and many large queries stall.
 * This socket factory is the supported way to turn it off (postgres.js `socket` option).
 */
export function noDelaySocket(o: { host: string[]; port: number[] }): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: o.host[0] ?? '127.0.0.1', port: o.port[0] ?? 5432, noDelay: true });
    s.once('error', reject);
    s.once('connect', () => {
      s.off('error', reject);
      resolve(s);
    });
  });
}

export interface MethodResult {
  method: InsertMethod;
  label: string;
  /** TCP_NODELAY on the database connection (false = postgres.js default, as the server runs today). */
  noDelay: boolean;
  group: number;
  rows: number;
  /** Rows / (time in the database round trips only). */
  dbRowsPerSec: number;
  /** Rows / (client-side encoding + database): what a writer using this method could reach. */
  e2eRowsPerSec: number;
  encodeMsPer1000: number;
  p50GroupMs: number;
  p95GroupMs: number;
  /** PostgreSQL CPU time (whole cluster) per row, µs: robust to other load on the machine. */
  pgUsPerRow: number;
  /** CPU used by everything else during the measurement, % of one core. */
  otherCpuPct: number;
  verifiedRows: number;
}

const COLS = SPAN_COLUMNS.map((c) => `"${c}"`).join(', ');

export async function runInsertMethod(
  databaseUrl: string,
  method: InsertMethod,
  noDelay: boolean,
  group: number,
  totalRows: number,
  t0: number,
  timeBudgetMs: number,
  pgPid: number | null,
): Promise<MethodResult> {
  // Same schema as the server: apply drizzle/ through the store's own migrator.
  const store = await openStore({ databaseUrl, dataDir: 'memory://', poolSize: 1 });
  await store.close();
  const pg = postgres(databaseUrl, {
    max: 1,
    onnotice: () => {},
    connect_timeout: 10,
    ...(noDelay ? { socket: noDelaySocket } : {}),
  });
  const db = drizzle(pg, { schema }) as unknown as Db;
  const staged = method === 'stage-rollups' ? stagedWriterStatement() : '';
  if (staged === null)
    throw new Error(
      'src/store/rollup-sql.ts no longer reads json_populate_recordset(null::spans, $1::json); update bench/copy-bench.ts',
    );
  const shapes = batchShapes(group);
  const groupTimes: number[] = [];
  let encodeMs = 0;
  let dbMs = 0;
  let rows = 0;
  const reserved = method === 'stage' || method === 'stage-rollups' ? await pg.reserve() : null;
  try {
    if (reserved) {
      await reserved.unsafe(
        `create temp table spans_stage (like spans including defaults) on commit delete rows`,
      );
    }
    const insertFromJson = `insert into spans (${COLS}) select ${COLS} from json_populate_recordset(null::spans, $1::json) on conflict do nothing`;
    const started = performance.now();
    const cpuBefore = cpuSnapshot(-1, pgPid);
    for (
      let base = 1;
      rows < totalRows && performance.now() - started < timeBudgetMs;
      base += group
    ) {
      const batch = rowSpans(shapes, base, t0);
      let e = performance.now();
      let payload: string | null = null;
      if (method === 'copy' || method === 'stage' || method === 'stage-rollups')
        payload = toCopyText(batch);
      else if (method === 'jsonpop') payload = JSON.stringify(batch.map(toJsonRow));
      const d = performance.now();
      if (method !== 'writer') encodeMs += d - e;
      e = d;
      switch (method) {
        case 'copy':
          await copyIn(
            await pg.unsafe(`copy spans (${COLS}) from stdin`).writable(),
            payload as string,
          );
          break;
        case 'writer':
          await insertSpans(db, batch as unknown as Span[]);
          break;
        case 'jsonpop':
          await pg.unsafe(insertFromJson, [payload as string]);
          break;
        case 'stage':
        case 'stage-rollups': {
          const r = reserved as NonNullable<typeof reserved>;
          await r.unsafe('begin');
          try {
            await copyIn(
              await r.unsafe(`copy spans_stage (${COLS}) from stdin`).writable(),
              payload as string,
            );
            if (method === 'stage') {
              await r.unsafe(
                `insert into spans (${COLS}) select ${COLS} from spans_stage on conflict do nothing`,
              );
            } else {
              await r.unsafe(staged as string, [batch.length]);
            }
            await r.unsafe('commit');
          } catch (err) {
            await r.unsafe('rollback').catch(() => undefined);
            throw err;
          }
          break;
        }
      }
      const took = performance.now() - e;
      dbMs += took;
      groupTimes.push(took);
      rows += batch.length;
    }
    const cpu = cpuDelta(cpuBefore, cpuSnapshot(-1, pgPid));
    // The pool has one connection: give the reserved one back before counting.
    reserved?.release();
    const [{ n }] = (await pg`select count(*)::int as n from spans`) as unknown as [{ n: number }];
    groupTimes.sort((a, b) => a - b);
    const pct = (p: number) =>
      groupTimes[Math.min(groupTimes.length - 1, Math.floor(p * groupTimes.length))] ?? Number.NaN;
    return {
      method,
      label: METHOD_LABEL[method],
      noDelay,
      group,
      rows,
      dbRowsPerSec: (rows / dbMs) * 1000,
      e2eRowsPerSec: (rows / (dbMs + encodeMs)) * 1000,
      encodeMsPer1000: method === 'writer' ? Number.NaN : (encodeMs / rows) * 1000,
      p50GroupMs: pct(0.5),
      p95GroupMs: pct(0.95),
      pgUsPerRow: pgPid === null ? Number.NaN : (cpu.postgresMs * 1000) / rows,
      otherCpuPct: (cpu.otherMs / cpu.wallMs) * 100,
      verifiedRows: n,
    };
  } finally {
    await pg.end({ timeout: 5 });
  }
}

async function copyIn(stream: Writable, text: string): Promise<void> {
  stream.end(text);
  await finished(stream);
}

/** Client-side cost of turning Span rows into each wire form, for the time split. */
export function encodeCosts(
  group: number,
  t0: number,
): { jsonStringifyMsPer1000: number; copyTextMsPer1000: number; buildRowsMsPer1000: number } {
  const shapes = batchShapes(group);
  const rounds = Math.max(3, Math.ceil(50_000 / group));
  let build = 0;
  let json = 0;
  let copy = 0;
  for (let k = 0; k < rounds; k++) {
    let t = performance.now();
    const rows: RowSpan[] = rowSpans(shapes, 1 + k * group, t0);
    build += performance.now() - t;
    t = performance.now();
    JSON.stringify(rows.map(toJsonRow));
    json += performance.now() - t;
    t = performance.now();
    toCopyText(rows);
    copy += performance.now() - t;
  }
  const per1000 = (ms: number) => (ms / (rounds * group)) * 1000;
  return {
    jsonStringifyMsPer1000: per1000(json),
    copyTextMsPer1000: per1000(copy),
    buildRowsMsPer1000: per1000(build),
  };
}
