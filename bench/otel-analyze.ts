/**
 * What one statistics run on `spans` costs PostgreSQL, at the sizes the otel-real row's first cell
 * passes through: the real exporter traffic of `--otel-real` (bench/otel-traffic.ts, decoded and
 * normalised by the server's own code) committed by the server's COPY form (span-copy.ts) into a
 * fresh migrated database with today's day partitions (as the server makes them), and at each size
 * the forms alternated round by round, each one's backend CPU read from /proc:
 * - `parent`: the statistics keeper's form, `analyze spans (<its 9 columns>)`, which in PostgreSQL
 *   15 samples the partitioned table as a whole and then each partition on its own;
 * - `leaf`: the same columns of today's partition alone;
 * - `leaf-all`: today's partition, every column (what autovacuum's analyze of a partition does);
 * - `vacuum`: `vacuum (analyze off)` of today's partition after the size's rows went in (what
 *   autovacuum's insert-triggered vacuum does; only its first round sees new pages).
 *
 *   node --import tsx bench/otel-analyze.ts [--sizes 25000,100000,200000] [--rounds 3]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { Span } from '../src/model/span.ts';
import { normalizeOtlp } from '../src/normalize/otlp.ts';
import { decodeOtlpProtobuf } from '../src/receivers/otlp-protobuf.ts';
import { openStore } from '../src/store/open-store.ts';
import { ensureDayPartitions, partitionName } from '../src/store/partitions.ts';
import { copySpans, encodeSpansCopy } from '../src/store/span-copy.ts';
import { startPgCluster } from '../test/helpers/pg-cluster.ts';
import { BatchFactory } from './otel-traffic.ts';

const { values: o } = parseArgs({
  options: {
    sizes: { type: 'string', default: '25000,100000,200000' },
    rounds: { type: 'string', default: '3' },
  },
});
const SIZES = (o.sizes as string).split(',').map(Number);
const ROUNDS = Number(o.rounds);
const COLUMNS =
  'project_id, session_id, trace_id, started_at, agent_name, server_name, tool_name, span_type, status';

/** Time on CPU of a process, ms (/proc/PID/schedstat, ns). */
const runMs = (pid: number) =>
  Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ', 1)[0]) / 1e6;

const factory = new BatchFactory(512);
const cluster = await startPgCluster();
try {
  const store = await openStore({
    databaseUrl: await cluster.createDatabase(),
    dataDir: '',
    poolSize: 1,
  });
  await ensureDayPartitions(store.db, new Date(), 7);
  const leaf = partitionName(new Date());
  const client = store.client;
  const pid = (await client<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
  const cpuOf = async (statement: string) => {
    const before = runMs(pid);
    await client.unsafe(statement);
    return runMs(pid) - before;
  };
  const forms: [string, string][] = [
    ['parent', `analyze spans (${COLUMNS})`],
    ['leaf', `analyze ${leaf} (${COLUMNS})`],
    ['leaf-all', `analyze ${leaf}`],
    ['vacuum', `vacuum (analyze off) ${leaf}`],
  ];
  let stored = 0;
  console.log(`| spans | ${forms.map(([f]) => `${f} ms CPU`).join(' | ')} | load |`);
  console.log(`|---|${forms.map(() => '---|').join('')}---|`);
  for (const size of SIZES) {
    while (stored < size) {
      const spans: Span[] = [];
      for (let i = 0; i < 3; i++) {
        const bytes = ProtobufTraceSerializer.serializeRequest(factory.next()) as Uint8Array;
        spans.push(...normalizeOtlp(decodeOtlpProtobuf(bytes), null, 'default').spans);
      }
      await copySpans(client, spans, [encodeSpansCopy(spans)]);
      stored += spans.length;
    }
    const runs = new Map<string, number[]>(forms.map(([f]) => [f, []]));
    for (let r = 0; r < ROUNDS; r++)
      for (const [form, statement] of forms) runs.get(form)!.push(await cpuOf(statement));
    console.log(
      `| ${stored} | ${forms
        .map(([f]) =>
          runs
            .get(f)!
            .map((ms) => ms.toFixed(0))
            .join(', '),
        )
        .join(' | ')} | ${loadavg()[0]!.toFixed(1)} |`,
    );
  }
  await store.close();
} finally {
  await cluster.stop();
}
