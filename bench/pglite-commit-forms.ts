/**
 * The PGlite ingest commit, before and after issue 28's target-3 work, interleaved on one store:
 * `statement` is the JSON statement sent unnamed through drizzle (planned for every group, as
 * before), `writer` the writer's commit as the server runs it now (src/compose/ingest.ts
 * spanCommit: COPY through the thread from 250 spans, a prepared statement below). Each group
 * is fresh spans of the bench's small profile in requests of 100, encoded as the writer does; the
 * variants take turns group by group, so a machine shared with other work slows both alike.
 * Prints the process's CPU (main thread and PGlite's thread) per span of each, over the same
 * groups' commits (the main thread waits meanwhile), and the wall time.
 *
 *   node --import tsx bench/pglite-commit-forms.ts [--groups 100,400,1000,1600] [--spans 16000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { spanCommit } from '../src/compose/ingest.ts';
import type { Span } from '../src/model/span.ts';
import { openStore } from '../src/store/open-store.ts';
import { encodeSpans, insertSpans } from '../src/store/spans-repo.ts';
import { batchShapes, rowSpans } from './payloads.ts';

const { values } = parseArgs({
  options: {
    groups: { type: 'string', default: '100,400,1000,1600' },
    spans: { type: 'string', default: '16000' },
  },
});
const WARM_ROUNDS = 3;
const shapes = batchShapes(100, 'small');
const t0 = Date.now() - 3600_000;

console.log('PGlite group commit, variants interleaved group by group (CPU = both threads)');
console.log('group   variant     CPU µs/span   wall µs/span');
for (const group of (values.groups ?? '').split(',').map(Number)) {
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-commit-forms-'));
  const store = await openStore({ dataDir: dir });
  try {
    const writer = spanCommit(store);
    const variants = [
      {
        name: 'statement',
        encode: encodeSpans,
        commit: (s: Span[], e: unknown[]) => insertSpans(store.db, s, e as string[]),
      },
      { name: 'writer', encode: writer.encode, commit: writer.commit },
    ];
    const totals = variants.map(() => ({ cpuUs: 0, wallUs: 0, spans: 0 }));
    let base = 0;
    const rounds = Math.max(1, Math.round(Number(values.spans) / group));
    for (let r = -WARM_ROUNDS; r < rounds; r++) {
      // Alternate which goes first, so neither always follows the other's work.
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) {
        const v = variants[i]!;
        const requests: Span[][] = [];
        for (let n = 0; n < group; n += 100, base += 100)
          requests.push(rowSpans(shapes, base, t0) as unknown as Span[]);
        const encoded = requests.map(v.encode);
        const cpu = process.cpuUsage();
        const began = performance.now();
        if ((await v.commit(requests.flat(), encoded)) !== 'all') throw new Error('not all stored');
        const used = process.cpuUsage(cpu);
        if (r < 0) continue;
        const t = totals[i]!;
        t.cpuUs += used.user + used.system;
        t.wallUs += (performance.now() - began) * 1000;
        t.spans += group;
      }
    }
    variants.forEach((v, i) => {
      const t = totals[i]!;
      console.log(
        `${String(group).padStart(5)}   ${v.name.padEnd(10)}  ${(t.cpuUs / t.spans).toFixed(1).padStart(11)}   ${(t.wallUs / t.spans).toFixed(1).padStart(12)}`,
      );
    });
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
