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
 *                                       [--client fetch|http] [--gc] [--data-dir DIR]
 *                                       [--alloc [--survivors]] [--cases NAME,…]
 *
 * `--gc` adds, per endpoint, V8's pauses during the requests (scavenges and mark-compacts: count,
 * time per request, longest) and the share of the slowest 5 % of requests' time spent in them;
 * `--client http` asks with node:http instead of fetch (both run on the server's event loop);
 * `--client bytes` with fetch, reading the body's bytes without decoding them (as read-path.ts does).
 * `--alloc` samples V8's allocations during the second pass (objects already collected included)
 * and prints, per endpoint, the bytes allocated per request and the functions that allocate most;
 * with `--survivors`, only the bytes no scavenge collected (what each scavenge copies or promotes).
 * `--data-dir DIR` reads the PostgreSQL cluster bench/read-path.ts --data-dir loaded and kept there
 * (e.g. 1,000,000 spans), in a process that did no load, instead of loading `--spans`; it adds the
 * project-scoped tree, the sessions lists (all projects, and by project) and the newest-100 spans
 * by project. `--cases tree,sessions` runs only the cases whose names begin so.
 */
import { Session } from 'node:inspector';
import { PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Agent, request } from 'node:http';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { startKeptCluster } from './kept-cluster.ts';
import { startBenchServer, startBenchServerOn } from './read-cases.ts';
import { pickTargets } from './read-path.ts';
import { loadNoted } from './read-data.ts';

const { values: o } = parseArgs({
  options: {
    backend: { type: 'string', default: 'postgres' },
    spans: { type: 'string', default: '20000' },
    requests: { type: 'string', default: '200' },
    client: { type: 'string', default: 'fetch' },
    gc: { type: 'boolean', default: false },
    'collect-first': { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
    alloc: { type: 'boolean', default: false },
    survivors: { type: 'boolean', default: false },
    cases: { type: 'string' },
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

// Allocation sampling through the inspector (the process's own session), collected objects kept.
const inspector = new Session();
inspector.connect();
const post = <T>(method: string, params?: object) =>
  new Promise<T>((res, rej) =>
    inspector.post(method, params, (err, r) => (err ? rej(err) : res(r as T))),
  );
const allocStart = () =>
  post('HeapProfiler.startSampling', {
    samplingInterval: 512,
    includeObjectsCollectedByMajorGC: true,
    // --survivors: only what no scavenge collected (promoted, or still alive at the end).
    includeObjectsCollectedByMinorGC: !o.survivors,
  });
interface AllocNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: AllocNode[];
}
/** Bytes per request, and the top functions by bytes allocated in them (self). */
async function allocStop(requests: number): Promise<string> {
  const { profile } = await post<{ profile: { head: AllocNode } }>('HeapProfiler.stopSampling');
  const by = new Map<string, number>();
  let total = 0;
  const walk = (node: AllocNode) => {
    const f = node.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${basename(f.url)}:${f.lineNumber + 1}`;
    by.set(key, (by.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const c of node.children) walk(c);
  };
  walk(profile.head);
  const top = [...by.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25);
  return (
    `  allocated ${(total / requests / 1024).toFixed(0)} KB/request; by function (KB/request):\n` +
    top.map(([k, v]) => `    ${(v / requests / 1024).toFixed(1).padStart(7)}  ${k}\n`).join('')
  );
}
const cleanups: (() => Promise<unknown>)[] = [];
try {
  let server;
  let treeIds: string[];
  let treeScoped: string[] = [];
  let projects: string[] = [];
  if (o['data-dir'] !== undefined) {
    const kept = await startKeptCluster(o['data-dir'], 'spyglass_read_bench');
    cleanups.push(() => kept.stop());
    if (!kept.existed)
      throw new Error(
        `${o['data-dir']}: no loaded cluster (bench/read-path.ts --data-dir loads one)`,
      );
    server = await startBenchServer(kept.url, cleanups);
    const targets = await pickTargets(server.services.store.db);
    treeIds = targets.treeSessions.slice(0, 5).map((t) => t.id);
    treeScoped = targets.treeSessions
      .slice(0, 5)
      .map((t) => `${t.id}?project_id=${encodeURIComponent(t.projectId)}`);
    projects = targets.projects;
  } else {
    server = await startBenchServerOn(
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
    treeIds = info.treeSessionIds;
  }
  const q = encodeURIComponent;
  const allCases: [string, string[]][] = [
    ['session tree', treeIds.map((id) => `/api/agents/sessions/${q(id)}`)],
    ['lineage (24 h)', ['/api/agents/lineage']],
    ['spans, newest 100', ['/api/traces/spans?limit=100']],
    // The cases below need the kept cluster's targets (--data-dir).
    ['tree, project-scoped', treeScoped.map((s) => `/api/agents/sessions/${s}`)],
    ['sessions list (24 h)', ['/api/agents/sessions?limit=50']],
    [
      'sessions, by project',
      projects.map((p) => `/api/agents/sessions?project_id=${q(p)}&limit=50`),
    ],
    [
      'spans 100, by project',
      projects.map((p) => `/api/traces/spans?limit=100&project_id=${q(p)}`),
    ],
  ];
  // --cases: a comma-separated list of case names' beginnings (default: all those with targets).
  const wanted = o.cases?.split(',').map((c) => c.trim());
  const cases = allCases.filter(
    ([name, paths]) => paths.length > 0 && (!wanted || wanted.some((w) => name.startsWith(w))),
  );
  const url = new URL(server.httpUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const httpGet = (path: string) =>
    new Promise<string>((resolve, reject) => {
      request({ host: url.hostname, port: url.port, path, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      })
        .on('error', reject)
        .end();
    });
  const get =
    o.client === 'http'
      ? httpGet
      : o.client === 'bytes'
        ? async (path: string) => (await fetch(server.httpUrl + path)).arrayBuffer()
        : async (path: string) => (await fetch(server.httpUrl + path)).text();
  // V8's pauses (kind 1 scavenge, 4 mark-compact, 8 incremental marking step, 16 weak callbacks).
  const pauses: { start: number; ms: number; kind: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      pauses.push({
        start: e.startTime,
        ms: e.duration,
        kind: (e as { detail?: { kind?: number } }).detail?.kind ?? 0,
      });
  });
  if (o.gc) observer.observe({ entryTypes: ['gc'] });
  if (o['collect-first']) {
    // A full collection after the load: the generator's garbage, not the server's.
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
  }
  const where = basename(process.cwd());
  for (let pass = 0; pass < 2; pass++) {
    for (const [name, paths] of cases) {
      for (let i = 0; i < 20; i++) await get(paths[i % paths.length] as string);
      const ms: number[] = [];
      const starts: number[] = [];
      pauses.length = 0;
      const sampling = o.alloc && pass === 1;
      if (sampling) await allocStart();
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await get(paths[i % paths.length] as string);
        starts.push(t);
        ms.push(performance.now() - t);
      }
      const cpu = process.cpuUsage(cpu0);
      const allocLines = sampling ? await allocStop(n) : '';
      let gcLine = '';
      if (o.gc) {
        // Pauses are reported after they end: give the observer's callback its turn.
        await new Promise((r) => setImmediate(r));
        const inRequest = ms.map((d, i) => {
          const t = starts[i] as number;
          return pauses
            .filter((p) => p.start >= t && p.start < t + d)
            .reduce((a, p) => a + p.ms, 0);
        });
        const slowest = ms
          .map((d, i) => [d, inRequest[i] as number] as const)
          .sort((a, b) => b[0] - a[0])
          .slice(0, Math.ceil(n * 0.05));
        const share = slowest.reduce((a, x) => a + x[1], 0) / slowest.reduce((a, x) => a + x[0], 0);
        const of = (kind: number) => pauses.filter((p) => p.kind === kind);
        const sum = (xs: { ms: number }[]) => xs.reduce((a, p) => a + p.ms, 0);
        gcLine = `; GC: ${of(1).length} scavenges ${(sum(of(1)) / n).toFixed(2)} ms/request (longest ${Math.max(0, ...of(1).map((p) => p.ms)).toFixed(1)}), ${of(4).length} mark-compacts ${(sum(of(4)) / n).toFixed(2)} ms/request; GC ${Math.round(share * 100)} % of the slowest 5 %'s time`;
      }
      ms.sort((a, b) => a - b);
      const at = (p: number) => (ms[Math.min(n - 1, Math.floor(n * p))] as number).toFixed(1);
      console.log(
        `${allocLines}${where} ${o.backend} ${name.padEnd(18)} CPU ${((cpu.user + cpu.system) / 1000 / n).toFixed(2)} ms/request, wall p50 ${at(0.5)} p95 ${at(0.95)} ms${gcLine}`,
      );
    }
  }
  observer.disconnect();
  agent.destroy();
} finally {
  for (const fn of cleanups.reverse()) await fn();
}
