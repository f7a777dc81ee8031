/**
 * The wall time of one group commit on PostgreSQL, from the moment the writer may close the group
 * to its commit answered, for the group of a batch-25 run (issue 28, target 2: at batch 25 the run
 * is bound by this latency). The writer's commit of this checkout (`spanCommit`: the COPY's
 * transaction pipelined, the transaction begun early) against another build's (`--base DIR`, its
 * dist/), in one process on one throwaway cluster, alternated commit by commit so that the
 * machine's load falls on both alike. `--busy-ms N` gives every turn of the event loop N ms of
 * other work, as a server's event loop busy with arriving requests has (0: an idle loop).
 *
 * Prints per form: commit wall time p50 / p90 ms and PostgreSQL CPU µs per span.
 *
 *   node --import tsx bench/commit-rtt.ts --base BEFORE/dist [--group 200] [--commits 150] [--busy-ms 2]
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { spanCommit } from '../src/compose/ingest.ts';
import { openStore } from '../src/store/open-store.ts';
import { startPgCluster } from '../test/helpers/pg-cluster.ts';
import { batch25Spans } from './batch25-spans.ts';
import { cpuDelta, cpuSnapshot, postmasterPid } from './proc-stats.ts';

const { values: o } = parseArgs({
  options: {
    base: { type: 'string' },
    group: { type: 'string', default: '200' },
    commits: { type: 'string', default: '150' },
    'busy-ms': { type: 'string', default: '0' },
  },
});
const GROUP = Number(o.group);
const COMMITS = Number(o.commits);
const BUSY_MS = Number(o['busy-ms']);

type Commit = ReturnType<typeof spanCommit>;
interface Form {
  name: string;
  commit: Commit;
  early: boolean;
  ms: number[];
  pgMs: number;
  spans: number;
}

/** N ms of other work on every turn of the event loop, until stopped. */
function busyLoop(ms: number): () => void {
  let on = ms > 0;
  const spin = () => {
    if (!on) return;
    const until = performance.now() + ms;
    while (performance.now() < until);
    setImmediate(spin);
  };
  if (on) setImmediate(spin);
  return () => (on = false);
}

const cluster = await startPgCluster();
const stopBusy = { stop: () => {} };
try {
  const url = await cluster.createDatabase('commit_rtt');
  const store = await openStore({ databaseUrl: url, dataDir: 'memory://', poolSize: 4 });
  const pgPid = postmasterPid(cluster.dataDir);
  const forms: Form[] = [];
  const mine = spanCommit(store);
  if (o.base) {
    const m = (await import(pathToFileURL(resolve(o.base, 'compose/ingest.js')).href)) as {
      spanCommit: typeof spanCommit;
    };
    forms.push({
      name: `base (${o.base})`,
      commit: m.spanCommit(store),
      early: false,
      ms: [],
      pgMs: 0,
      spans: 0,
    });
  }
  forms.push({
    name: 'this checkout, pipelined, no early BEGIN',
    commit: mine,
    early: false,
    ms: [],
    pgMs: 0,
    spans: 0,
  });
  forms.push({
    name: 'this checkout, pipelined + early BEGIN',
    commit: mine,
    early: true,
    ms: [],
    pgMs: 0,
    spans: 0,
  });
  stopBusy.stop = busyLoop(BUSY_MS);
  for (let i = 0; i < COMMITS + 10; i++) {
    for (const f of i % 2 ? [...forms].reverse() : forms) {
      const spans = batch25Spans(GROUP, 'rtt');
      const encoded = [f.commit.encode(spans, spans.length)];
      const cpu = cpuSnapshot(-1, pgPid);
      const t = performance.now();
      // As the writer's drain: the early transaction begun, the group taken once it is answered;
      // else the group taken on the next turn.
      const early = f.early ? f.commit.open?.() : undefined;
      if (early) await early.ready;
      else await new Promise((r) => setImmediate(r));
      const r = await f.commit.commit(spans, encoded, early);
      const ms = performance.now() - t;
      if (r !== 'all') throw new Error(`${f.name}: not every span stored`);
      if (i < 10) continue; // warm-up: connections, prepared statements
      f.ms.push(ms);
      f.pgMs += cpuDelta(cpu, cpuSnapshot(-1, pgPid)).postgresMs;
      f.spans += spans.length;
    }
  }
  stopBusy.stop();
  const pct = (a: number[], p: number) =>
    [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(p * a.length))] as number;
  console.log(
    `groups of ${GROUP} spans, ${COMMITS} commits per form alternated, event loop busy ${BUSY_MS} ms a turn`,
  );
  console.log('| form | commit p50 ms | p90 ms | PostgreSQL µs/span |');
  console.log('|---|---|---|---|');
  for (const f of forms)
    console.log(
      `| ${f.name} | ${pct(f.ms, 0.5).toFixed(2)} | ${pct(f.ms, 0.9).toFixed(2)} | ${((f.pgMs * 1000) / f.spans).toFixed(1)} |`,
    );
  await store.close();
} finally {
  stopBusy.stop();
  await cluster.stop();
}
