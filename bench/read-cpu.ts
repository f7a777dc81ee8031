/**
 * CPU per request of the heaviest reads, for judging a change on a busy machine where wall times
 * are the CPU queue (docs/benchmarks.md, target 5): loads `--spans` spans (with 5 sessions of 200
 * spans) into a server in this process, then GETs the session tree, lineage and the newest-100
 * spans list `--requests` times each, twice, and prints per endpoint the process's CPU (user +
 * system: the server, its PGlite thread and the HTTP client; PostgreSQL's own CPU is apart) per
 * request and the wall p50/p95. Compare a change by running this file alternately in a checkout
 * before it (copy the file there) and after it.
 *
 *   node --import tsx bench/read-cpu.ts [--backend pglite|postgres] [--spans 20000] [--requests 200]
 */
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { startBenchServerOn } from './read-cases.ts';
import { loadNoted } from './read-data.ts';

const { values: o } = parseArgs({
  options: {
    backend: { type: 'string', default: 'postgres' },
    spans: { type: 'string', default: '20000' },
    requests: { type: 'string', default: '200' },
    help: { type: 'boolean', default: false },
  },
});
if (o.help) {
  console.log(
    'usage: node --import tsx bench/read-cpu.ts [--backend pglite|postgres] [--spans N] [--requests N]',
  );
  process.exit(0);
}
const n = Number(o.requests);
const cleanups: (() => Promise<unknown>)[] = [];
try {
  const server = await startBenchServerOn(
    o.backend === 'postgres' ? 'postgres' : 'pglite',
    'spyglass_read_cpu',
    cleanups,
  );
  const { info } = await loadNoted(server.services.stats, server.services.store.db, {
    spans: Number(o.spans),
    treeSessions: 5,
    end: new Date(),
    groupSize: 5000,
  });
  const cases: [string, string[]][] = [
    [
      'session tree',
      info.treeSessionIds.map((id) => `/api/agents/sessions/${encodeURIComponent(id)}`),
    ],
    ['lineage (24 h)', ['/api/agents/lineage']],
    ['spans, newest 100', ['/api/traces/spans?limit=100']],
  ];
  const get = async (path: string) => (await fetch(server.httpUrl + path)).text();
  const where = basename(process.cwd());
  for (let pass = 0; pass < 2; pass++) {
    for (const [name, paths] of cases) {
      for (let i = 0; i < 20; i++) await get(paths[i % paths.length] as string);
      const ms: number[] = [];
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await get(paths[i % paths.length] as string);
        ms.push(performance.now() - t);
      }
      const cpu = process.cpuUsage(cpu0);
      ms.sort((a, b) => a - b);
      const at = (p: number) => (ms[Math.min(n - 1, Math.floor(n * p))] as number).toFixed(1);
      console.log(
        `${where} ${o.backend} ${name.padEnd(18)} CPU ${((cpu.user + cpu.system) / 1000 / n).toFixed(2)} ms/request, wall p50 ${at(0.5)} p95 ${at(0.95)} ms`,
      );
    }
  }
} finally {
  for (const fn of cleanups.reverse()) await fn();
}
