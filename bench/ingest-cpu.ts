/**
 * The server's own CPU per span on the real exporter traffic of `--otel-real`, stage by stage and
 * in-process (no sockets, no database): OTLP protobuf decoding, normalising, pricing, the COPY
 * encoding, the group's rollup rows and the live events, each run over the same exports, rounds
 * alternated. Prints CPU µs/span per stage (median and least of the rounds; user + system of this
 * process, so the collector's time during a stage counts to it). `--base DIR` runs the same stages
 * of another build's dist/ (e.g. main's) alternately with this checkout's, for before/after.
 *
 *   node --import tsx bench/ingest-cpu.ts [--exports 64] [--rounds 7] [--only COPY] [--base DIR]
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { Span } from '../src/model/span.ts';
import { BatchFactory } from './otel-traffic.ts';

const { values: o } = parseArgs({
  options: {
    exports: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '7' },
    // Only the stages whose names contain this (e.g. `--only COPY` under --cpu-prof).
    only: { type: 'string', default: '' },
    base: { type: 'string' },
  },
});
const EXPORTS = Number(o.exports);
const ROUNDS = Number(o.rounds);

/** The stage functions of a build: `../src` (this checkout, through tsx) or a dist/ directory. */
async function load(dir: string, ext: string) {
  const m = (p: string) => import(pathToFileURL(resolve(dir, `${p}.${ext}`)).href);
  const [pricer, prices, rules, live, normalize, protobuf, rollups, copy, repo] = await Promise.all(
    [
      m('costs/span-pricer'),
      m('costs/price-book'),
      m('costs/tool-rules'),
      m('model/live-event'),
      m('normalize/otlp'),
      m('receivers/otlp-protobuf'),
      m('store/rollup-rows'),
      m('store/span-copy'),
      m('store/spans-repo'),
    ],
  );
  return {
    priceSpans: pricer.priceSpans as typeof import('../src/costs/span-pricer.ts').priceSpans,
    // No database: every project gets the default prices' table (what table() gives before a reload).
    book: new prices.PriceBook(null) as import('../src/costs/price-book.ts').PriceBook,
    rules: new rules.ToolCostRules([]) as import('../src/costs/tool-rules.ts').ToolCostRules,
    spanNewEvent: live.spanNewEvent as typeof import('../src/model/live-event.ts').spanNewEvent,
    normalizeOtlp:
      normalize.normalizeOtlp as typeof import('../src/normalize/otlp.ts').normalizeOtlp,
    decode:
      protobuf.decodeOtlpProtobuf as typeof import('../src/receivers/otlp-protobuf.ts').decodeOtlpProtobuf,
    rollupRows: rollups.rollupRows as typeof import('../src/store/rollup-rows.ts').rollupRows,
    // Through an encoder of its own where the build has one (the writer's way: its scratch kept).
    encodeCopy: (copy.CopyEncoder
      ? (
          (e: { encode: (b: readonly Span[]) => unknown }) => (b: readonly Span[]) =>
            e.encode(b)
        )(new copy.CopyEncoder())
      : copy.encodeSpansCopy) as (b: readonly Span[]) => unknown,
    encodeJson: repo.encodeSpans as (b: readonly Span[]) => string,
  };
}
type Build = Awaited<ReturnType<typeof load>>;

const factory = new BatchFactory(512);
const payloads: Buffer[] = [];
for (let i = 0; i < EXPORTS; i++)
  payloads.push(
    Buffer.from(ProtobufTraceSerializer.serializeRequest(factory.next()) as Uint8Array),
  );

function stages(b: Build) {
  const decoded = () => payloads.map((p) => b.decode(p));
  const normalised = () =>
    decoded().map((d) => {
      const spans = b.normalizeOtlp(d, null, 'default').spans;
      b.priceSpans(spans, b.book, b.rules);
      return spans;
    });
  return {
    decode: { prepare: () => payloads, run: (p: Buffer[]) => p.map((x) => b.decode(x)) },
    normalise: {
      prepare: decoded,
      run: (d: ReturnType<typeof decoded>) => d.map((x) => b.normalizeOtlp(x, null, 'default')),
    },
    price: {
      prepare: normalised,
      run: (g: Span[][]) => g.forEach((s) => b.priceSpans(s, b.book, b.rules)),
    },
    'encode COPY': { prepare: normalised, run: (g: Span[][]) => g.map(b.encodeCopy) },
    'encode JSON': { prepare: normalised, run: (g: Span[][]) => g.map(b.encodeJson) },
    // The writer's groups are 2-4 exports at this load: rollups per two exports.
    rollups: {
      prepare: normalised,
      run: (g: Span[][]) => {
        const out = [];
        for (let i = 0; i < g.length; i += 2)
          out.push(b.rollupRows([...g[i]!, ...(g[i + 1] ?? [])]));
        return out;
      },
    },
    'live events': {
      prepare: normalised,
      run: (g: Span[][]) => g.map((s) => s.map(b.spanNewEvent)),
    },
  } as Record<string, { prepare: () => unknown; run: (x: never) => unknown }>;
}

const builds: [string, Build][] = [['', await load(resolve(import.meta.dirname, '../src'), 'ts')]];
if (o.base) builds.push([' (base)', await load(resolve(o.base), 'js')]);
const spans = payloads.reduce(
  (n, p) => n + builds[0]![1].decode(p).resourceSpans.reduce((k, r) => k + r.spans.length, 0),
  0,
);
process.stderr.write(
  `${EXPORTS} exports, ${spans} spans, ${factory.bytesPerSpan.toFixed(0)} B/span in protobuf\n`,
);
const cpu = new Map<string, number[]>();
let sink: unknown;
for (let r = 0; r < ROUNDS; r++) {
  for (const [tag, build] of r % 2 ? [...builds].reverse() : builds)
    for (const [name, stage] of Object.entries(stages(build))) {
      if (!name.includes(o.only)) continue;
      const input = stage.prepare();
      const t = process.cpuUsage();
      sink = stage.run(input as never);
      const d = process.cpuUsage(t);
      if (r > 0) cpu.set(name + tag, [...(cpu.get(name + tag) ?? []), (d.user + d.system) / spans]);
    }
}
void sink;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [name, xs] of [...cpu].sort((a, b) => a[0].localeCompare(b[0])))
  console.log(
    `${name.padEnd(20)} ${median(xs).toFixed(2).padStart(6)} µs/span, least ${Math.min(...xs).toFixed(2)}  (${xs.map((x) => x.toFixed(1)).join(', ')})`,
  );
