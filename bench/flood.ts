/**
 * The flooding tenant of the noisy-neighbour row (noisy-neighbour.ts), in a process of its own so
 * that building and sending 10,000-span bodies does not delay the victim's requests and their
 * timing in the bench process. On {start}: runs one closed-loop cell with the flood's key, answers
 * {started} at once and {result} when the cell ends.
 */
import { runCell, seqAllocator, type BodySource, type CellResult } from './load.ts';
import { Template } from './payloads.ts';

interface Start {
  httpPort: number;
  grpcPort: number;
  key: string;
  batch: number;
  connections: number;
  durationMs: number;
  seqBase: number;
  t0: number;
}

process.on('message', (m: { start?: Start }) => {
  if (!m.start) return;
  const o = m.start;
  const template = repeated(Template.build('native', CHUNK), Math.ceil(o.batch / CHUNK));
  process.send?.({ started: true });
  void runCell({ httpPort: o.httpPort, grpcPort: o.grpcPort }, template, {
    concurrency: o.connections,
    warmupMs: 0,
    durationMs: o.durationMs,
    maxSpans: Number.MAX_SAFE_INTEGER,
    requestTimeoutMs: 60_000,
    t0: o.t0,
    headers: { 'x-api-key': o.key },
    nextSeq: seqAllocator(o.seqBase),
  }).then(
    (result: CellResult) => process.send?.({ result }, () => process.exit(0)),
    (err: unknown) => process.send?.({ error: String(err) }, () => process.exit(1)),
  );
});
process.send?.({ ready: true });

/**
 * Native bodies of `times` × chunk spans, built from the chunk's template: building a 10,000-span
 * template directly takes minutes (each marker is searched in the whole body). The spans are
 * the same shapes (sessions cycle every 500 spans either way), with consecutive ids.
 */
const CHUNK = 500;
function repeated(chunk: Template, times: number): BodySource {
  return {
    protocol: 'native',
    spans: chunk.spans * times,
    render: (base, t0) => {
      const parts: Buffer[] = [Buffer.from('[')];
      for (let k = 0; k < times; k++) {
        const body = chunk.render(base + k * chunk.spans, t0);
        if (k > 0) parts.push(Buffer.from(','));
        parts.push(body.subarray(1, body.length - 1));
      }
      parts.push(Buffer.from(']'));
      return Buffer.concat(parts);
    },
  };
}
