/**
 * Start-up of `spyglass serve` on PGlite (issue 28, target 4): wall time from spawn to the first
 * 200 of /api/readiness (polled every 20 ms), the CPU time of every thread of the server at that
 * moment (user + system from /proc, children included: initdb's child on a fresh directory), and
 * its RSS then. Builds alternate run by run, so a busy machine disturbs both alike.
 *
 *   node --import tsx bench/startup.ts [--runs 3] [--fresh] [--nice=-10] [--bin A/bin/spyglass.js --bin B/...]
 *     [--node-flags='--flag …' per --bin, in the same order]
 *
 * Without --fresh every start opens one existing data directory per build (made by a first start
 * that is not counted); with it every start gets a new, empty directory.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '../test/helpers/free-port.ts';
import { treeCpu } from './proc-stats.ts';
import { readStatusKb } from './server-proc.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    fresh: { type: 'boolean', default: false },
    bin: { type: 'string', multiple: true },
    nice: { type: 'string' },
    'node-flags': { type: 'string', multiple: true },
  },
});
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bins = (values.bin ?? [join(ROOT, 'bin', 'spyglass.js')]).map((b) => resolve(b));
/** node's flags for each --bin's server, by position (none when fewer are given). */
const nodeFlags = bins.map((_, i) => (values['node-flags']?.[i] ?? '').split(' ').filter(Boolean));
const label = (i: number) => [bins[i], ...nodeFlags[i]!].join(' ');

interface Start {
  wallMs: number;
  cpuMs: number;
  /** The main thread's CPU time. */
  mainMs: number;
  rssMb: number;
}

async function start(bin: string, dataDir: string, flags: string[] = []): Promise<Start> {
  const port = await freePort();
  const t0 = performance.now();
  // On a shared machine `--nice=-10` (root) lets the server go before the other work, so its wall
  // time approaches a quiet machine's.
  const cmd = [process.execPath, ...flags, bin, 'serve'];
  if (values.nice !== undefined) cmd.unshift('nice', '-n', values.nice);
  const child = spawn(cmd[0]!, cmd.slice(1), {
    cwd: dataDir,
    env: {
      ...process.env,
      SPYGLASS_CONFIG: join(dataDir, 'spyglass.yaml'),
      SPYGLASS_HOST: '127.0.0.1',
      SPYGLASS_PORT: String(port),
      SPYGLASS_GRPC_PORT: '0',
      SPYGLASS_DATA_DIR: dataDir,
      SPYGLASS_DATABASE_URL: '',
      SPYGLASS_LOG_LEVEL: 'warn',
      NODE_OPTIONS: '',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let exited = false;
  const exit = new Promise<void>((res) => child.once('exit', () => res()));
  void exit.then(() => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error(`server exited during start-up:\n${stderr}`);
      const ok = await fetch(`http://127.0.0.1:${port}/api/readiness`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    return {
      wallMs: performance.now() - t0,
      cpuMs: treeCpu(child.pid!).totalMs,
      mainMs: threadCpuMs(child.pid!),
      rssMb: readStatusKb(child.pid!, 'VmRSS') / 1024,
    };
  } finally {
    child.kill('SIGTERM');
    await exit;
  }
}

/** utime + stime of a process's main thread, ms (CLK_TCK 100). */
function threadCpuMs(pid: number): number {
  const raw = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
  const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

const newDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-startup-'));
  writeFileSync(join(dir, 'spyglass.yaml'), '');
  return dir;
};
const dirs = bins.map(() => newDir());
if (!values.fresh) for (const [i, bin] of bins.entries()) await start(bin, dirs[i]!, nodeFlags[i]);

const results: Start[][] = bins.map(() => []);
for (let run = 0; run < Number(values.runs); run++) {
  for (const [i, bin] of bins.entries()) {
    const dir = values.fresh ? newDir() : dirs[i]!;
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    const r = await start(bin, dir, nodeFlags[i]);
    results[i]!.push(r);
    if (values.fresh) rmSync(dir, { recursive: true, force: true });
    console.log(
      `${label(i)}: ${values.fresh ? 'fresh' : 'existing'} wall ${(r.wallMs / 1000).toFixed(2)} s, CPU ${(r.cpuMs / 1000).toFixed(2)} s (main thread ${(r.mainMs / 1000).toFixed(2)} s), RSS ${r.rssMb.toFixed(0)} MB (load ${load})`,
    );
  }
}
for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const i of bins.keys()) {
  const rs = results[i]!;
  console.log(
    `median ${label(i)}: wall ${(median(rs.map((r) => r.wallMs)) / 1000).toFixed(2)} s, CPU ${(median(rs.map((r) => r.cpuMs)) / 1000).toFixed(2)} s (main thread ${(median(rs.map((r) => r.mainMs)) / 1000).toFixed(2)} s), RSS ${median(rs.map((r) => r.rssMb)).toFixed(0)} MB`,
  );
}
