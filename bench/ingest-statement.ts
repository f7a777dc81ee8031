/**
 * The ingest commit's cost inside PostgreSQL, without the server or the network in the way: the
 * real exporter traffic of `--otel-real` (bench/otel-traffic.ts: recorded with the OpenTelemetry
 * SDK, serialised to OTLP protobuf, decoded and normalised by the server's own code) committed in
 * groups the way the writer commits them, into a fresh migrated database per run, forms
 * alternated round by round. Prints PostgreSQL backend CPU per span (from /proc) and wall time.
 *
 *   node --import tsx bench/ingest-statement.ts [--groups 8] [--group 4096] [--rounds 3]
 *
 * Forms: `statement` (json_populate_recordset … ON CONFLICT DO NOTHING with the rollups: PGlite's
 * form, and PostgreSQL's fallback), `copy` (src/store/span-copy.ts: COPY of the rows, then the
 * rollup upsert: PostgreSQL's form), `copy-only` (COPY of the rows alone: the floor, no rollups).
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { sql } from 'drizzle-orm';
import type { Span } from '../src/model/span.ts';
import { normalizeOtlp } from '../src/normalize/otlp.ts';
import { decodeOtlpProtobuf } from '../src/receivers/otlp-protobuf.ts';
import { execute } from '../src/store/db.ts';
import { openStore } from '../src/store/open-store.ts';
import { copySpans, encodeSpansCopy } from '../src/store/span-copy.ts';
import { COLUMN_NAMES } from '../src/store/span-rows.ts';
import { insertSpans } from '../src/store/spans-repo.ts';
import { startPgCluster } from '../test/helpers/pg-cluster.ts';
import { BatchFactory } from './otel-traffic.ts';

const { values: o } = parseArgs({
  options: {
    groups: { type: 'string', default: '8' },
    group: { type: 'string', default: '4096' },
    rounds: { type: 'string', default: '3' },
  },
});
const [GROUPS, GROUP, ROUNDS] = [Number(o.groups), Number(o.group), Number(o.rounds)];
const FORMS = ['statement', 'copy', 'copy-only'] as const;

const factory = new BatchFactory(512);
const groups: Span[][] = [];
for (let g = 0; g < GROUPS; g++) {
  const spans: Span[] = [];
  while (spans.length < GROUP) {
    const bytes = ProtobufTraceSerializer.serializeRequest(factory.next()) as Uint8Array;
    spans.push(...normalizeOtlp(decodeOtlpProtobuf(bytes), null, 'default').spans);
  }
  groups.push(spans.slice(0, GROUP));
}
const total = GROUP * GROUPS;
process.stderr.write(
  `${GROUPS} groups of ${GROUP} spans (${factory.bytesPerSpan.toFixed(0)} B/span in protobuf)\n`,
);

/** User + system CPU of a process, in µs. */
const cpuUs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000;
};
const copyOnly = `copy spans (${COLUMN_NAMES}) from stdin`;

const cluster = await startPgCluster();
const results = new Map<string, { cpu: number[]; wall: number[] }>();
try {
  for (let r = 0; r < ROUNDS; r++)
    for (const form of FORMS) {
      const store = await openStore({
        databaseUrl: await cluster.createDatabase(),
        dataDir: '',
        poolSize: 1,
      });
      const client = store.client;
      const pid = (await client<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
      const cpu0 = cpuUs(pid);
      const t0 = performance.now();
      for (const g of groups) {
        if (form === 'statement') await insertSpans(store.db, g);
        else if (form === 'copy') await copySpans(client, g, [encodeSpansCopy(g)]);
        else {
          const w = await client.unsafe(copyOnly).writable();
          await new Promise<void>((res, rej) =>
            w.on('error', rej).end(encodeSpansCopy(g), () => res()),
          );
        }
      }
      const wall = ((performance.now() - t0) * 1000) / total;
      const cpu = (cpuUs(pid) - cpu0) / total;
      const n = (await execute<{ n: number }>(store.db, sql`select count(*)::int as n from spans`))
        .rows[0]!.n;
      if (n !== total) throw new Error(`${form}: ${n} spans stored of ${total}`);
      const e = results.get(form) ?? { cpu: [], wall: [] };
      results.set(form, { cpu: [...e.cpu, cpu], wall: [...e.wall, wall] });
      process.stderr.write(
        `round ${r + 1} ${form}: ${cpu.toFixed(1)} µs/span PostgreSQL CPU, ${wall.toFixed(1)} µs/span wall, load ${loadavg()[0]!.toFixed(1)}\n`,
      );
      await store.close();
    }
} finally {
  await cluster.stop();
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const floor = median(results.get('copy-only')!.cpu);
console.log('| form | PostgreSQL CPU µs/span (median of rounds) | × COPY alone | wall µs/span |');
console.log('|---|---|---|---|');
for (const [form, { cpu, wall }] of results)
  console.log(
    `| ${form} | ${median(cpu).toFixed(1)} (${cpu.map((x) => x.toFixed(1)).join(', ')}) | ${(median(cpu) / floor).toFixed(2)} | ${median(wall).toFixed(1)} |`,
  );
