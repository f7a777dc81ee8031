/**
 * The Spyglass server under test as a child process (`node bin/spyglass.js serve`), so its memory
 * can be read from /proc and it competes for the CPU exactly as it would in production.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/helpers/free-port.ts';
import { childPids } from './proc-stats.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'spyglass.js');

export interface ServerOptions {
  /** Reuse this data directory (a restart); default: a fresh temp directory. */
  dataDir?: string;
  /** postgres:// URL, or undefined for PGlite in a temp data dir. */
  databaseUrl?: string;
  /** Write a V8 CPU profile (.cpuprofile) into this directory when the server exits. */
  cpuProfDir?: string;
  logLevel?: string;
  /**
   * 'high' (default): the rate limiter stays in the request path (its per-request cost is measured)
   * with limits far above what the bench sends; 'off': SPYGLASS_RATE_LIMITS=off.
   */
  rateLimits?: 'high' | 'off';
  /** Extra node flags for the server process (e.g. --max-old-space-size=160). */
  nodeFlags?: string[];
  /** Extra environment for the server. */
  env?: Record<string, string>;
  /** YAML appended to the server's spyglass.yaml (other top-level sections than rate_limits). */
  extraConfig?: string;
  /** Another build's bin/spyglass.js (a before/after comparison); default this checkout's. */
  bin?: string;
  /** How long start-up may take before it counts as failed (default 300 s: a first start on PGlite took over 120 s on a shared machine at load average 40). */
  readyTimeoutMs?: number;
}

export interface ServerProc {
  pid: number;
  httpUrl: string;
  httpPort: number;
  grpcPort: number;
  dataDir: string;
  logPath: string;
  /** Spawn to ready, ms. */
  startupMs: number;
  /**
   * Ready to settled, ms: the server's deferred start-up work done (the GraphQL server, built a
   * second after listening or on first use, src/graphql/yoga.ts), so a cell measures requests and
   * not that one-off work. A build that does it before listening settles at once.
   */
  settleMs: number;
  /** Highest RSS (the server with its workers, summed) seen by the sampler since the last resetPeak(), MB. */
  peakSampledMb(): number;
  resetPeak(): void;
  /** The kernel's high-water mark of the process's RSS (VmHWM), MB. */
  hwmMb(): number;
  /** SIGTERM, wait for a clean exit (it commits acknowledged spans), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<number | null>;
  /** Removes the temp data dir (after stop). */
  dispose(): void;
  logTail(lines?: number): string;
}

export async function startServerProc(opts: ServerOptions): Promise<ServerProc> {
  const startedAt = performance.now();
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'spyglass-bench-'));
  const httpPort = await freePort();
  const grpcPort = await freePort();
  const logPath = join(dataDir, `server-${Date.now()}.log`);
  // The default per-client limits (docs/auth.md#rate-limits) would turn a load test into a 429 test.
  const configPath = join(dataDir, 'spyglass.yaml');
  writeFileSync(
    configPath,
    `rate_limits:\n  spans: 10000000\n  otlp: 10000000\n  default: 10000000\n  per_address: 10000000\n${opts.extraConfig ?? ''}`,
  );
  const log = createWriteStream(logPath);
  const nodeArgs = [
    ...(opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : []),
    ...(opts.nodeFlags ?? []),
  ];
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, opts.bin ?? BIN, 'serve'], {
    cwd: dataDir,
    env: {
      ...process.env,
      SPYGLASS_CONFIG: configPath,
      ...(opts.rateLimits === 'off' ? { SPYGLASS_RATE_LIMITS: 'off' } : {}),
      SPYGLASS_HOST: '127.0.0.1',
      SPYGLASS_PORT: String(httpPort),
      SPYGLASS_GRPC_PORT: String(grpcPort),
      SPYGLASS_DATA_DIR: dataDir,
      SPYGLASS_DATABASE_URL: opts.databaseUrl ?? '',
      SPYGLASS_LOG_LEVEL: opts.logLevel ?? 'warn',
      SPYGLASS_API_KEYS: '',
      NODE_OPTIONS: '',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<number | null>((res) =>
    child.once('exit', (code, signal) => res(code ?? (signal ? 128 : null))),
  );
  let exitCode: number | null | undefined;
  void exited.then((c) => (exitCode = c));

  const pid = child.pid;
  if (pid === undefined) throw new Error('could not spawn the server');
  const httpUrl = `http://127.0.0.1:${httpPort}`;
  let peakKb = 0;
  // Workers (SPYGLASS_WORKERS > 1) are child processes; their list is refreshed every 2 s, since
  // scanning /proc on every 100 ms sample would cost the bench more than it measures.
  let children: number[] = [];
  let childrenAt = 0;
  const sample = () => {
    if (performance.now() - childrenAt > 2_000) {
      children = childPids(pid);
      childrenAt = performance.now();
    }
    let kb = readStatusKb(pid, 'VmRSS');
    for (const c of children) kb += readStatusKb(c, 'VmRSS');
    if (kb > peakKb) peakKb = kb;
  };
  const sampler = setInterval(sample, 100);
  sampler.unref();

  const logTail = (lines = 30) => {
    try {
      return readFileSync(logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  };

  const proc: ServerProc = {
    pid,
    httpUrl,
    httpPort,
    grpcPort,
    dataDir,
    logPath,
    startupMs: 0,
    settleMs: 0,
    peakSampledMb: () => {
      sample();
      return peakKb / 1024;
    },
    resetPeak: () => {
      peakKb = 0;
      sample();
    },
    hwmMb: () => readStatusKb(pid, 'VmHWM') / 1024,
    async stop(graceMs = 20_000) {
      clearInterval(sampler);
      if (exitCode !== undefined) return exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      log.end();
      return code;
    },
    dispose() {
      rmSync(dataDir, { recursive: true, force: true });
    },
    logTail,
  };

  // Ready when /api/readiness answers 200 (storage migrated and reachable); bounded wait.
  const readyMs = opts.readyTimeoutMs ?? 300_000;
  const deadline = Date.now() + readyMs;
  for (;;) {
    if (exitCode !== undefined) {
      throw new Error(`server exited with ${exitCode} during start-up:\n${logTail()}`);
    }
    try {
      const res = await fetch(`${httpUrl}/api/readiness`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await proc.stop(2000);
      throw new Error(`server not ready within ${readyMs / 1000} s:\n${logTail()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.startupMs = performance.now() - startedAt;
  await settle(httpUrl, deadline, opts.env?.SPYGLASS_API_KEYS?.split(',')[0]);
  proc.settleMs = performance.now() - startedAt - proc.startupMs;
  return proc;
}

/**
 * Asks GraphQL once (with the server's first key, if it has keys), which builds it now if the
 * server had deferred that: the first ingest cell used to pay for it, about a second of CPU
 * (docs/benchmarks.md, the redesign's ingest rows). Any answer will do once it has been built.
 */
async function settle(httpUrl: string, deadline: number, key?: string): Promise<void> {
  const res = await fetch(`${httpUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    body: '{"query":"{ __typename }"}',
    signal: AbortSignal.timeout(Math.max(1000, deadline - Date.now())),
  });
  await res.arrayBuffer();
}

/** A field of /proc/<pid>/status in kB (0 when the process is gone). */
export function readStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}
