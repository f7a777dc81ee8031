/**
 * The server's CPU per span at batch 25 for two builds side by side (issue 28, target 2): both
 * servers run at once on one throwaway PostgreSQL cluster (a database each), are warmed up
 * together, then take the load in turn, segment by segment (A B B A A B …, protocols in turn), so
 * that the machine's load of the moment falls on both alike and neither is measured while its
 * JIT is still compiling the request path (at ~100-500 requests a second that takes tens of
 * seconds: a bench cell of 1 + 3 s counts part of it).
 *
 * Prints per segment and, at the end, per build and protocol: the median server µs/span and
 * PostgreSQL µs/span, and the spans acknowledged against the spans stored.
 *
 *   node --import tsx bench/b25-pairs.ts --base OTHER/bin/spyglass.js [--rounds 6] [--segment 3]
 *     [--warmup 20] [--batch 25] [--protocols native,otlp-proto] [--concurrency 16]
 */
import { copyFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { startPgCluster } from '../test/helpers/pg-cluster.ts';
import { runCell, seqAllocator } from './load.ts';
import { Template, type Protocol } from './payloads.ts';
import { cpuDelta, cpuSnapshot, postmasterPid } from './proc-stats.ts';
import { startServerProc, type ServerProc } from './server-proc.ts';

const { values: o } = parseArgs({
  options: {
    base: { type: 'string' },
    bin: { type: 'string' },
    rounds: { type: 'string', default: '6' },
    segment: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '20' },
    batches: { type: 'string', default: '25' },
    protocols: { type: 'string', default: 'native,otlp-proto' },
    concurrency: { type: 'string', default: '16' },
    'node-flags': { type: 'string', default: '' },
    // Copy each server's log here before its data directory is removed.
    'keep-logs': { type: 'string' },
  },
});
if (!o.base) {
  console.error('usage: node --import tsx bench/b25-pairs.ts --base OTHER/bin/spyglass.js');
  process.exit(2);
}
const ROUNDS = Number(o.rounds);
const SEGMENT_MS = Number(o.segment) * 1000;
const WARMUP_MS = Number(o.warmup) * 1000;
const BATCHES = o.batches.split(',').map(Number);
const PROTOCOLS = o.protocols.split(',') as Protocol[];
const CONCURRENCY = Number(o.concurrency);
const nodeFlags = o['node-flags'].split(/\s+/).filter(Boolean);

const log = (m: string) =>
  process.stderr.write(`[b25 ${new Date().toISOString().slice(11, 19)}] ${m}\n`);

const cluster = await startPgCluster();
const pgPid = postmasterPid(cluster.dataDir);
const builds: { name: string; bin: string | undefined; server?: ServerProc; url?: string }[] = [
  { name: 'after', bin: o.bin ? resolve(o.bin) : undefined },
  { name: 'before', bin: resolve(o.base) },
];
const t0 = Date.now() - 2 * 3600_000;
const nextSeq = seqAllocator();
const CELLS = PROTOCOLS.flatMap((protocol) => BATCHES.map((batch) => ({ protocol, batch })));
const templates = new Map(
  CELLS.map((c) => [`${c.protocol}/${c.batch}`, Template.build(c.protocol, c.batch, 'small')]),
);
const acked = new Map<string, number>();
const results: { build: string; cell: string; srv: number; pg: number; sps: number }[] = [];

try {
  for (const b of builds) {
    b.url = await cluster.createDatabase(`b25_${b.name}_${Date.now()}`);
    b.server = await startServerProc({
      databaseUrl: b.url,
      rateLimits: 'off',
      nodeFlags,
      ...(b.bin ? { bin: b.bin } : {}),
    });
    acked.set(b.name, 0);
    log(`${b.name}: pid ${b.server.pid} ${b.bin ?? '(this checkout)'}`);
  }
  const segment = async (b: (typeof builds)[number], cell: string, ms: number, warm: number) => {
    const server = b.server as ServerProc;
    const before = cpuSnapshot(server.pid, pgPid);
    const r = await runCell(
      { httpPort: server.httpPort, grpcPort: server.grpcPort },
      templates.get(cell) as Template,
      {
        concurrency: CONCURRENCY,
        warmupMs: warm,
        durationMs: ms,
        maxSpans: 5_000_000,
        requestTimeoutMs: 30_000,
        nextSeq,
        t0,
      },
    );
    const cpu = cpuDelta(before, cpuSnapshot(server.pid, pgPid));
    acked.set(b.name, (acked.get(b.name) ?? 0) + r.ackedTotal);
    return {
      srv: (cpu.serverMs * 1000) / r.ackedTotal,
      pg: (cpu.postgresMs * 1000) / r.ackedTotal,
      sps: r.spansPerSec,
      other: (cpu.otherMs / cpu.wallMs) * 100,
      errors: r.errors,
    };
  };
  log(`warm-up: ${WARMUP_MS / 1000} s per build and protocol`);
  for (const { protocol, batch } of CELLS)
    for (const b of builds) {
      const s = await segment(b, `${protocol}/${batch}`, WARMUP_MS, 0);
      log(
        `warm-up ${b.name} ${protocol}/${batch}: server ${s.srv.toFixed(1)} µs/span, ${s.sps.toFixed(0)} spans/s`,
      );
    }
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const { protocol, batch } of CELLS)
      for (const b of order) {
        const cell = `${protocol}/${batch}`;
        const s = await segment(b, cell, SEGMENT_MS, 300);
        results.push({ build: b.name, cell, srv: s.srv, pg: s.pg, sps: s.sps });
        log(
          `round ${round + 1} ${b.name.padEnd(6)} ${cell.padEnd(14)} server ${s.srv.toFixed(1).padStart(6)} µs/span, pg ${s.pg.toFixed(1).padStart(6)}, ${s.sps.toFixed(0).padStart(6)} spans/s, other CPU ${s.other.toFixed(0)}%, load ${loadavg()[0]?.toFixed(1)}${s.errors ? `, ${s.errors} errors` : ''}`,
        );
      }
  }
} finally {
  for (const b of builds) await b.server?.stop();
  for (const b of builds) {
    if (!b.url) continue;
    const sql = postgres(b.url, { max: 1, onnotice: () => {} });
    const [row] = (await sql`select count(*)::int as n from spans`) as unknown as [{ n: number }];
    await sql.end({ timeout: 5 });
    log(`${b.name}: ${acked.get(b.name)} spans acknowledged, ${row.n} stored`);
    if (o['keep-logs'] && b.server)
      copyFileSync(b.server.logPath, resolve(o['keep-logs'], `${b.name}-server.log`));
    b.server?.dispose();
  }
  await cluster.stop();
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
console.log(`${ROUNDS} rounds of ${SEGMENT_MS / 1000} s segments, medians (min-max):`);
for (const { protocol, batch } of CELLS)
  for (const b of builds) {
    const cell = `${protocol}/${batch}`;
    const rs = results.filter((r) => r.build === b.name && r.cell === cell);
    const f = (k: 'srv' | 'pg' | 'sps') =>
      `${median(rs.map((r) => r[k])).toFixed(1)} (${Math.min(...rs.map((r) => r[k])).toFixed(1)}-${Math.max(...rs.map((r) => r[k])).toFixed(1)})`;
    console.log(
      `${cell.padEnd(14)} ${b.name.padEnd(6)} server µs/span ${f('srv')}  pg µs/span ${f('pg')}  spans/s ${f('sps')}`,
    );
  }
