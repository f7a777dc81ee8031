/**
 * The server's own CPU per span on the real exporter traffic of `--otel-real`, stage by stage and
 * in-process (no sockets, no database): OTLP protobuf decoding, normalising, pricing, the COPY
 * encoding, the group's rollup rows and the live events, each run over the same exports, rounds
 * alternated. Prints CPU µs/span per stage (median of the rounds; user + system of this process,
 * so the collector's time spent during a stage counts to it).
 *
 *   node --import tsx bench/ingest-cpu.ts [--exports 64] [--rounds 7] [--only COPY]
 */
import { parseArgs } from 'node:util';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { PriceBook } from '../src/costs/price-book.ts';
import { priceSpans } from '../src/costs/span-pricer.ts';
import { ToolCostRules } from '../src/costs/tool-rules.ts';
import { spanNewEvent } from '../src/model/live-event.ts';
import type { Span } from '../src/model/span.ts';
import { normalizeOtlp } from '../src/normalize/otlp.ts';
import { decodeOtlpProtobuf } from '../src/receivers/otlp-protobuf.ts';
import { rollupRows } from '../src/store/rollup-rows.ts';
import { encodeSpansCopy } from '../src/store/span-copy.ts';
import { encodeSpans } from '../src/store/spans-repo.ts';
import { BatchFactory } from './otel-traffic.ts';

const { values: o } = parseArgs({
  options: {
    exports: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '7' },
    // Only the stages whose names contain this (e.g. `--only COPY` under --cpu-prof).
    only: { type: 'string', default: '' },
  },
});
const EXPORTS = Number(o.exports);
const ROUNDS = Number(o.rounds);

const factory = new BatchFactory(512);
const payloads: Buffer[] = [];
for (let i = 0; i < EXPORTS; i++)
  payloads.push(
    Buffer.from(ProtobufTraceSerializer.serializeRequest(factory.next()) as Uint8Array),
  );
// No database: every project gets the default prices' table (what table() gives before a reload).
const book = new PriceBook(null as never);
const rules = new ToolCostRules([]);

const decoded = () => payloads.map((p) => decodeOtlpProtobuf(p));
const normalised = () =>
  decoded().map((d) => {
    const spans = normalizeOtlp(d, null, 'default').spans;
    priceSpans(spans, book, rules);
    return spans;
  });
let sink: unknown;
const STAGES: Record<string, { prepare: () => unknown; run: (x: never) => unknown }> = {
  decode: { prepare: () => payloads, run: (p: Buffer[]) => p.map((b) => decodeOtlpProtobuf(b)) },
  normalise: {
    prepare: decoded,
    run: (d: ReturnType<typeof decoded>) => d.map((x) => normalizeOtlp(x, null, 'default')),
  },
  price: {
    prepare: normalised,
    run: (g: Span[][]) => g.forEach((s) => priceSpans(s, book, rules)),
  },
  'encode COPY': { prepare: normalised, run: (g: Span[][]) => g.map(encodeSpansCopy) },
  'encode JSON': { prepare: normalised, run: (g: Span[][]) => g.map(encodeSpans) },
  // The writer's groups are 2-4 exports at this load: rollups per two exports.
  rollups: {
    prepare: normalised,
    run: (g: Span[][]) => {
      const out = [];
      for (let i = 0; i < g.length; i += 2) out.push(rollupRows([...g[i]!, ...(g[i + 1] ?? [])]));
      return out;
    },
  },
  'live events': { prepare: normalised, run: (g: Span[][]) => g.map((s) => s.map(spanNewEvent)) },
};

const spans = normalised().reduce((n, g) => n + g.length, 0);
process.stderr.write(
  `${EXPORTS} exports, ${spans} spans, ${factory.bytesPerSpan.toFixed(0)} B/span in protobuf\n`,
);
const cpu = new Map<string, number[]>();
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, stage] of Object.entries(STAGES)) {
    if (!name.includes(o.only)) continue;
    const input = stage.prepare();
    const t = process.cpuUsage();
    sink = stage.run(input as never);
    const d = process.cpuUsage(t);
    if (r > 0) cpu.set(name, [...(cpu.get(name) ?? []), (d.user + d.system) / spans]);
  }
}
void sink;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
let total = 0;
for (const [name, xs] of cpu) {
  if (name !== 'encode JSON') total += median(xs);
  console.log(
    `${name.padEnd(12)} ${median(xs).toFixed(2).padStart(6)} µs/span  (${xs.map((x) => x.toFixed(1)).join(', ')})`,
  );
}
console.log(`${'total'.padEnd(12)} ${total.toFixed(2).padStart(6)} µs/span (encode JSON left out)`);
