/**
 * How much encoding a batch-25 load costs the writer per committed span, this checkout's writer
 * (src/ingest/writer.ts) against another checkout's (`--base OTHER`, its src/), in one process: 16
 * clients each send a 25-span request and wait for it, as the bench's closed loop does, and the
 * commit is a timer of `--commit-ms` (no database) after an early BEGIN of `--begin-ms` (the
 * writer's `open`, as on PostgreSQL), and a client sends its next request
 * `--client-ms` × i/16 after its answer (client i's HTTP round trip), so only the writer's choices
 * differ. The
 * encodings are the real ones (COPY's rows and the statement's JSON), counted and timed: spans
 * encoded for COPY and as JSON per committed span, and CPU µs of encoding per committed span.
 * Writers alternate, round by round.
 *
 *   node --import tsx bench/encode-passes.ts --base OTHER [--rounds 6] [--spans 100000] [--commit-ms 8] [--begin-ms 2] [--client-ms 1]
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Span } from '../src/model/span.ts';
import { encodeSpansCopy } from '../src/store/span-copy.ts';
import { encodeSpans } from '../src/store/spans-repo.ts';
import { batch25Spans } from './batch25-spans.ts';

const { values: o } = parseArgs({
  options: {
    base: { type: 'string' },
    rounds: { type: 'string', default: '6' },
    spans: { type: 'string', default: '100000' },
    'commit-ms': { type: 'string', default: '8' },
    // Between an answer and the client's next request (its HTTP round trip), at most, spread evenly.
    'client-ms': { type: 'string', default: '1' },
    // The early BEGIN's round trip (src/store/early-transaction.ts): the group is taken once it is answered.
    'begin-ms': { type: 'string', default: '2' },
  },
});
if (!o.base) {
  console.error('usage: node --import tsx bench/encode-passes.ts --base OTHER_CHECKOUT');
  process.exit(2);
}
const ROUNDS = Number(o.rounds);
const SPANS = Number(o.spans);
const COMMIT_MS = Number(o['commit-ms']);
const CLIENT_MS = Number(o['client-ms']);
const BEGIN_MS = Number(o['begin-ms']);
const CLIENTS = 16;
const BATCH = 25;
/** PostgreSQL's: a group of at least this many spans goes by COPY (src/compose/ingest.ts). */
const COPY_MIN_SPANS = 100;

type Encoded = string | Uint8Array;
interface Writer {
  write(spans: Span[]): Promise<number>;
  close(): Promise<void>;
}
type WriterClass = new (opts: Record<string, unknown>) => Writer;

const load = async (dir: string) =>
  (
    (await import(pathToFileURL(resolve(dir, 'src/ingest/writer.ts')).href)) as {
      GroupCommitWriter: WriterClass;
    }
  ).GroupCommitWriter;
const writers = [
  { name: 'after', Writer: await load(resolve('.')) },
  { name: 'before', Writer: await load(resolve(o.base)) },
];

async function run(Writer: WriterClass) {
  const c = { copySpans: 0, jsonSpans: 0, encodeUs: 0, committed: 0, groups: 0 };
  const timed = <T>(f: () => T): T => {
    const t = process.cpuUsage();
    const r = f();
    const d = process.cpuUsage(t);
    c.encodeUs += d.user + d.system;
    return r;
  };
  const copy = (spans: readonly Span[]) => {
    c.copySpans += spans.length;
    return timed(() => encodeSpansCopy(spans));
  };
  const json = (spans: readonly Span[]) => {
    c.jsonSpans += spans.length;
    return timed(() => encodeSpans(spans));
  };
  const isJson = (e: Encoded) => typeof e === 'string';
  // spanCommit's rules (src/compose/ingest.ts) on PostgreSQL, with a timer for the commit.
  const writer = new Writer({
    open: () => ({
      ready: new Promise((r) => setTimeout(r, BEGIN_MS)),
      run: () => Promise.reject(new Error('not used')),
      discard: () => undefined,
    }),
    maxQueuedSpans: 1_000_000,
    maxCommitSpans: 5000,
    encode: (spans: Span[], groupSpans = spans.length) =>
      spans.length >= COPY_MIN_SPANS || groupSpans >= COPY_MIN_SPANS ? copy(spans) : json(spans),
    recode: (spans: Span[], e: Encoded, groupSpans: number) =>
      groupSpans >= COPY_MIN_SPANS ? (isJson(e) ? copy(spans) : e) : isJson(e) ? e : json(spans),
    commit: async (spans: Span[], enc: Encoded[]) => {
      if (spans.length >= COPY_MIN_SPANS && enc.some(isJson)) copy(spans);
      if (spans.length < COPY_MIN_SPANS && !enc.every(isJson)) json(spans);
      await new Promise((r) => setTimeout(r, COMMIT_MS));
      c.committed += spans.length;
      c.groups++;
      return 'all';
    },
  });
  const requests = Array.from({ length: Math.ceil(SPANS / BATCH) }, () =>
    batch25Spans(BATCH, 'enc'),
  );
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      while (next < requests.length) {
        await writer.write(requests[next++] as Span[]);
        await new Promise((r) => setTimeout(r, (CLIENT_MS * i) / CLIENTS));
      }
    }),
  );
  await writer.close();
  return c;
}

for (let round = 0; round < ROUNDS; round++) {
  for (const w of round % 2 === 0 ? writers : [...writers].reverse()) {
    const c = await run(w.Writer);
    console.log(
      `${w.name.padEnd(6)} spans encoded per committed span: COPY ${(c.copySpans / c.committed).toFixed(2)}, JSON ${(c.jsonSpans / c.committed).toFixed(2)}; encoding ${(c.encodeUs / c.committed).toFixed(2)} µs CPU per span; ${(c.committed / c.groups).toFixed(0)} spans per group`,
    );
  }
}
