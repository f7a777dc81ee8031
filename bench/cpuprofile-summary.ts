/**
 * Where a server's CPU time went, from a V8 .cpuprofile (`npm run bench -- --cpu-prof DIR`):
 *
 *   node --import tsx bench/cpuprofile-summary.ts DIR/CPU.*.cpuprofile [--top 40] [--callers writeBuffer] [--skip 5]
 *
 * Prints self time by area (our src/ files, each dependency, Node internals, GC, idle) and the
 * hottest functions, plus inclusive time of the src/ functions.
 */
import { parseArgs } from 'node:util';
import { area, readProfile, type ProfileNode } from './profile-top.ts';

const { values, positionals } = parseArgs({
  options: {
    top: { type: 'string', default: '40' },
    callers: { type: 'string' },
    // Leave out the first N seconds (the server's start-up: module loading, migrations).
    skip: { type: 'string', default: '0' },
  },
  allowPositionals: true,
});
const top = Number(values.top);
if (positionals.length === 0) {
  console.error(
    'usage: node --import tsx bench/cpuprofile-summary.ts FILE.cpuprofile [--top N] [--skip S]',
  );
  process.exit(2);
}

for (const file of positionals) summarize(file);

function summarize(file: string): void {
  const p = readProfile(file);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  const from = p.startTime + Number(values.skip) * 1e6;
  let at = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    const id = p.samples[i] as number;
    at += p.timeDeltas[i] ?? 0;
    if (at < from) continue;
    self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  const totalUs = p.endTime - Math.max(from, p.startTime);
  let idle = 0;
  const areas = new Map<string, number>();
  const fns = new Map<string, number>();
  const inclusiveSrc = new Map<string, number>();
  for (const [id, us] of self) {
    const n = byId.get(id) as ProfileNode;
    const a = area(n.callFrame);
    if (a === '(idle)') idle += us;
    areas.set(a, (areas.get(a) ?? 0) + us);
    const key = `${n.callFrame.functionName || '(anonymous)'}  ${a}:${n.callFrame.lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
    // Inclusive time of src/ functions: walk up the stack, count each distinct frame once.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = (byId.get(cur) as ProfileNode).callFrame;
      const s = area(f);
      if (!s.startsWith('src/')) continue;
      const k = `${f.functionName || '(anonymous)'}  ${s}:${f.lineNumber + 1}`;
      if (seen.has(k)) continue;
      seen.add(k);
      inclusiveSrc.set(k, (inclusiveSrc.get(k) ?? 0) + us);
    }
  }
  const busy = totalUs - idle;
  const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms`;
  const share = (us: number) => `${((us / busy) * 100).toFixed(1).padStart(5)}%`;
  console.log(
    `\n${file}\nwall ${(totalUs / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s (${((busy / totalUs) * 100).toFixed(0)}%); shares below are of busy time`,
  );
  console.log('\nself time by area:');
  for (const [a, us] of [...areas]
    .filter(([a]) => a !== '(idle)')
    .sort((x, y) => y[1] - x[1])
    .slice(0, 25))
    console.log(`  ${ms(us)} ${share(us)}  ${a}`);
  console.log(`\nhottest functions (self):`);
  for (const [k, us] of [...fns]
    .filter(([k]) => !k.startsWith('(idle)'))
    .sort((x, y) => y[1] - x[1])
    .slice(0, top))
    console.log(`  ${ms(us)} ${share(us)}  ${k}`);
  if (values.callers) {
    // Self time of the named function, by its 9 nearest callers.
    const stacks = new Map<string, number>();
    for (const [id, us] of self) {
      const n = byId.get(id) as ProfileNode;
      if (n.callFrame.functionName !== values.callers) continue;
      const chain: string[] = [];
      for (let cur = parent.get(id); cur !== undefined && chain.length < 9; cur = parent.get(cur)) {
        const f = (byId.get(cur) as ProfileNode).callFrame;
        chain.push(`${f.functionName || '(anonymous)'} [${area(f)}]`);
      }
      const k = chain.join(' < ');
      stacks.set(k, (stacks.get(k) ?? 0) + us);
    }
    console.log(`\ncallers of ${values.callers}:`);
    for (const [k, us] of [...stacks].sort((x, y) => y[1] - x[1]).slice(0, 10))
      console.log(`  ${ms(us)} ${share(us)}  ${k}`);
  }
  console.log(`\nsrc/ functions (inclusive):`);
  for (const [k, us] of [...inclusiveSrc].sort((x, y) => y[1] - x[1]).slice(0, 30))
    console.log(`  ${ms(us)} ${share(us)}  ${k}`);
}
