/**
 * How long one large JSON body holds the event loop while it is parsed (issue 25 item 2):
 *
 *   node --import tsx bench/large-body-delay.ts [--spans 10000] [--bodies 10]
 *
 * Parses native bodies of `--spans` spans (bench/payloads.ts, ~700 B a span) the way the receivers
 * do, once on the event loop (Fastify's parser: secure-json-parse) and once through the worker
 * pool and its parts (src/receivers/json-pool.ts, json-parts.ts, each part one CPU slice), while a
 * 1 ms timer measures the event loop's delay. Prints the event loop's longest stall and p99 for
 * each (wall clock: a loaded machine stretches every piece), the main thread's CPU per body (from
 * /proc, Linux; 10 ms ticks) and the CPU time of the longest single piece: the whole parse before,
 * the largest part after. A quiet machine is not needed to compare the two: a
 * stall is a piece of work the loop cannot interleave, whatever the load adds around it.
 */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import secureJson from 'secure-json-parse';
import { CpuSlices } from '../src/ingest/cpu-slices.ts';
import { assembleParts } from '../src/receivers/json-parts.ts';
import { JsonParsePool } from '../src/receivers/json-pool.ts';
import { Template } from './payloads.ts';

const { values } = parseArgs({
  options: {
    spans: { type: 'string', default: '10000' },
    bodies: { type: 'string', default: '10' },
  },
});
const spans = Number(values.spans);
const bodies = Number(values.bodies);
const template = Template.build('native', spans);
const OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;
const pool = new JsonParsePool(1);
await pool.parse(template.render(0, Date.now()), 'warm-up');

async function measure(name: string, parseOne: (body: Buffer) => Promise<unknown>) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const tick = setInterval(() => undefined, 1);
  delay.enable();
  let cpuMs = 0;
  for (let i = 0; i < bodies; i++) {
    const body = template.render(i * spans, Date.now());
    const before = mainThreadCpuMs();
    await parseOne(body);
    cpuMs += mainThreadCpuMs() - before;
    await new Promise((r) => setTimeout(r, 20));
  }
  delay.disable();
  clearInterval(tick);
  const ms = (ns: number) => (ns / 1e6).toFixed(1);
  console.log(
    `${name.padEnd(34)} loop delay max ${ms(delay.max).padStart(6)} ms, p99 ${ms(delay.percentile(99)).padStart(6)} ms; ` +
      `main-thread CPU ${(cpuMs / bodies).toFixed(0)} ms/body`,
  );
}

console.log(
  `${bodies} native bodies of ${spans} spans, ${(template.byteLength / 1e6).toFixed(1)} MB each`,
);
await measure('on the event loop (before)', async (body) =>
  secureJson.parse(body.toString('utf8'), OPTIONS),
);
const slices = new CpuSlices();
await measure('worker thread + parts (after)', async (body) => {
  const parsed = await pool.parse(body, 'bench');
  if (parsed.kind !== 'parts') throw new Error(parsed.kind);
  return assembleParts(parsed, (n) => slices.ingestSlice(n, 'bench'));
});

// The longest piece, in CPU time (nothing else runs on the process meanwhile).
const body = template.render(0, Date.now()).toString('utf8');
const cpu = (work: () => unknown) => {
  const at = process.cpuUsage();
  work();
  const used = process.cpuUsage(at);
  return (used.user + used.system) / 1000;
};
const whole = Math.min(...[1, 2, 3].map(() => cpu(() => secureJson.parse(body, OPTIONS))));
const parsed = await pool.parse(Buffer.from(body), 'bench');
if (parsed.kind !== 'parts') throw new Error(parsed.kind);
const largest = Math.max(...parsed.parts.map((p) => cpu(() => JSON.parse(p.json))));
console.log(
  `longest piece (CPU): whole parse ${whole.toFixed(1)} ms; largest of ${parsed.parts.length} parts ${largest.toFixed(1)} ms`,
);
await pool.close();

/** CPU time of this process's main thread (utime + stime of its task, in 10 ms ticks). */
function mainThreadCpuMs(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
