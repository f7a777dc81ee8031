/**
 * The writer's rollup upsert (src/store/rollup-sql.ts, as span-copy.ts runs it after a COPY)
 * planned by PostgreSQL's own choice (plan_cache_mode = auto), a custom plan every run, or its
 * generic plan (what the writer's transactions force, early-transaction.ts GENERIC_PLANS): on a
 * database holding `--groups` groups of the real exporter traffic (bench/otel-traffic.ts)
 * committed by the writer's COPY, each mode on a fresh connection, `--runs` runs of the upsert
 * with one group's rollup rows, each rolled back, modes alternated round by round. Prints the
 * backend's CPU for the connection's first run (the statement parsed, its tables' catalog entries
 * loaded, its plan made) and per later run, the plans PostgreSQL made (pg_prepared_statements),
 * and whether the custom and the generic plan have the same shape (EXPLAIN of the same values).
 *
 *   node --import tsx bench/writer-plans.ts [--groups 12] [--group 1300] [--runs 40] [--rounds 3]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import postgres from 'postgres';
import type { Span } from '../src/model/span.ts';
import { normalizeOtlp } from '../src/normalize/otlp.ts';
import { decodeOtlpProtobuf } from '../src/receivers/otlp-protobuf.ts';
import { GENERIC_PLANS } from '../src/store/early-transaction.ts';
import { ingestQuery } from '../src/store/ingest-query.ts';
import { openStore } from '../src/store/open-store.ts';
import { rollupRows } from '../src/store/rollup-rows.ts';
import { copySpans, encodeSpansCopy } from '../src/store/span-copy.ts';
import { startPgCluster } from '../test/helpers/pg-cluster.ts';
import { BatchFactory } from './otel-traffic.ts';

const { values: o } = parseArgs({
  options: {
    groups: { type: 'string', default: '12' },
    group: { type: 'string', default: '1300' },
    runs: { type: 'string', default: '40' },
    rounds: { type: 'string', default: '3' },
  },
});
const [GROUPS, GROUP, RUNS, ROUNDS] = [o.groups, o.group, o.runs, o.rounds].map(Number) as [
  number,
  number,
  number,
  number,
];
const MODES = ['auto', 'force_custom_plan', 'generic (SET LOCAL)'] as const;

const factory = new BatchFactory(512);
const groups: Span[][] = [];
for (let g = 0; g <= GROUPS; g++) {
  const spans: Span[] = [];
  while (spans.length < GROUP) {
    const bytes = ProtobufTraceSerializer.serializeRequest(factory.next()) as Uint8Array;
    spans.push(...normalizeOtlp(decodeOtlpProtobuf(bytes), null, 'default').spans);
  }
  groups.push(spans.slice(0, GROUP));
}
/** A process's time on CPU, in µs (/proc/PID/schedstat: ns resolution). */
const cpuUs = (pid: number) =>
  Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ', 1)[0]) / 1000;
const shape = (plan: string[]) =>
  plan
    .filter((l) => !/^(Planning|Execution) Time/.test(l))
    .map((l) => l.replace(/\s*\(cost=[^)]*\)/, ''))
    .join('\n');

const cluster = await startPgCluster();
try {
  const url = await cluster.createDatabase();
  const store = await openStore({ databaseUrl: url, dataDir: '', poolSize: 1 });
  for (const g of groups.slice(0, GROUPS)) await copySpans(store.client, g, [encodeSpansCopy(g)]);
  await store.client.unsafe('analyze');
  await store.close();
  // The upsert as a group after a COPY runs it: no span rows, the group's rollup rows.
  const q = ingestQuery('[]', 0, rollupRows(groups[GROUPS]!));
  const lit = (v: unknown) =>
    v === null
      ? 'null'
      : typeof v === 'number'
        ? String(v)
        : `'${String(v).replaceAll("'", "''")}'`;

  // The two plans' shapes for the same values (EXPLAIN of the prepared text, not run).
  const c = postgres(url, { max: 1, onnotice: () => {} });
  await c.unsafe(`prepare upsert as ${q.sql}`);
  const plans: Record<string, { text: string; planning: string }> = {};
  for (const mode of ['force_custom_plan', 'force_generic_plan']) {
    await c.unsafe(`set plan_cache_mode = ${mode}`);
    const rows = await c.unsafe<{ 'QUERY PLAN': string }[]>(
      `explain (summary) execute upsert(${q.params.map(lit).join(', ')})`,
    );
    const lines = rows.map((r) => r['QUERY PLAN']);
    plans[mode] = {
      text: shape(lines),
      planning: lines.find((l) => l.startsWith('Planning Time')) ?? '',
    };
  }
  await c.end();
  const same = plans.force_custom_plan!.text === plans.force_generic_plan!.text;
  console.log(
    `plan shapes, custom and generic, for one group's values: ${same ? 'the same' : 'DIFFERENT'} (${plans.force_custom_plan!.text.split('\n').length} nodes)`,
  );
  if (!same) for (const [m, p] of Object.entries(plans)) console.log(`--- ${m}\n${p.text}`);

  console.log(
    `\n| round | mode | first run, ms CPU | runs 2-5, ms CPU each | runs 6-${RUNS}, ms CPU each | custom / generic plans | load |`,
  );
  console.log('|---|---|---|---|---|---|---|');
  for (let round = 1; round <= ROUNDS; round++)
    for (const mode of MODES) {
      const conn = postgres(url, {
        max: 1,
        onnotice: () => {},
        ...(mode === 'force_custom_plan' ? { connection: { plan_cache_mode: mode } } : {}),
      });
      const pid = (await conn<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
      const cpu: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = cpuUs(pid);
        await conn
          .begin(async (tx) => {
            if (mode.startsWith('generic')) await tx.unsafe(GENERIC_PLANS);
            await tx.unsafe(q.sql, q.params as never[], { prepare: true });
            throw new Error('rolled back');
          })
          .catch(() => undefined);
        cpu.push(cpuUs(pid) - t0);
      }
      const [ps] = await conn.unsafe<{ g: number; c: number }[]>(
        `select generic_plans::int as g, custom_plans::int as c from pg_prepared_statements where statement like '%json_populate_recordset%'`,
      );
      await conn.end();
      const ms = (xs: number[]) => (xs.reduce((a, b) => a + b, 0) / xs.length / 1000).toFixed(2);
      console.log(
        `| ${round} | ${mode} | ${ms(cpu.slice(0, 1))} | ${ms(cpu.slice(1, 5))} | ${ms(cpu.slice(5))} | ${ps?.c} / ${ps?.g} | ${loadavg()[0]!.toFixed(1)} |`,
      );
    }
} finally {
  await cluster.stop();
}
