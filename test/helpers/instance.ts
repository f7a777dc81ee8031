import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedPglite } from './data-dir.ts';
import { freePort } from './free-port.ts';
import { CHILD_NODE_FLAGS } from './child-node.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = join(ROOT, 'bin/spyglass.js');

export interface Instance {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  grpcPort: number;
  child: ChildProcess;
  /** Everything the process printed (JSON log lines), for asserting what it said. */
  output(): string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL (no cleanup: leases are not released, nothing is flushed). */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit (bounded: SIGKILL after 20 s). */
  stop(): Promise<void>;
}

const running = new Set<Instance>();
const dirs: string[] = [];

/**
 * Kills every instance still running and removes the data directories: after each test file
 * (test/setup-instances.ts). Not an `afterAll` here: a worker imports this module once for all the
 * files it runs (vitest.config.ts, isolate: false), so a hook registered at import belongs to the
 * first of them only, and an instance a later file's failed test left behind ran on (one was found
 * 53 minutes after its run, 87 s of CPU spent, its data directory gone).
 */
export async function killInstances(): Promise<void> {
  await Promise.all([...running].map((i) => i.kill()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/**
 * `spyglass serve` as a separate process, the way a user runs it (node bin/spyglass.js serve), on
 * free loopback ports, with `env` on top (SPYGLASS_DATABASE_URL, SPYGLASS_REDIS_URL, ...). Resolves
 * once it has logged that it listens and GET /api/readiness answers 200 (at most `readyWithinMs`);
 * every instance is killed after the test file (killInstances).
 */
export async function spawnInstance(
  env: Record<string, string>,
  readyWithinMs = 60_000,
): Promise<Instance> {
  // freePort() releases the ports it found: another test's server may take one before the child
  // binds it (a run met it). The child then exits saying so: try again on other ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnOnce(env, readyWithinMs);
    } catch (err) {
      const ours = !env.SPYGLASS_PORT && !env.SPYGLASS_GRPC_PORT;
      if (!ours || attempt >= 3 || !/port \S+ is already in use/.test(String(err))) throw err;
    }
  }
}

async function spawnOnce(env: Record<string, string>, readyWithinMs: number): Promise<Instance> {
  const port = env.SPYGLASS_PORT ? Number(env.SPYGLASS_PORT) : await freePort();
  let grpcPort = env.SPYGLASS_GRPC_PORT ? Number(env.SPYGLASS_GRPC_PORT) : await freePort();
  // freePort() closes its listener, so the next call may hand out the same port again.
  while (!env.SPYGLASS_GRPC_PORT && grpcPort === port) grpcPort = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'spyglass-inst-'));
  dirs.push(dataDir);
  // On the embedded database, a copy of the run's migrated one instead of a first start (initdb and
  // every migration) per instance, as startTestServer does (test/helpers/data-dir.ts).
  if (!env.SPYGLASS_DATABASE_URL) seedPglite(dataDir);
  const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, CLI, 'serve'], {
    cwd: dataDir,
    env: {
      ...process.env,
      SPYGLASS_HOST: '127.0.0.1',
      SPYGLASS_PORT: String(port),
      SPYGLASS_GRPC_PORT: String(grpcPort),
      SPYGLASS_DATA_DIR: dataDir,
      SPYGLASS_LOG_LEVEL: 'info',
      // As startTestServer's (test/helpers/server.ts): no connections' warm-up unless asked.
      SPYGLASS_DATABASE_WARM_UP: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  const inst: Instance = {
    url,
    port,
    grpcPort,
    child,
    output: () => out,
    exited,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      running.delete(inst);
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(t);
      }
      running.delete(inst);
    },
  };
  running.add(inst);
  const deadline = Date.now() + readyWithinMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`spyglass serve exited before it was ready:\n${out}`);
    // Only once the child says it listens: freePort() released the port, so until the child binds
    // it another test's server may hold it and answer this probe (a CI run met one that did).
    if (out.includes('spyglass listening'))
      try {
        const res = await fetch(`${url}/api/readiness`, { signal: AbortSignal.timeout(1000) });
        if (res.status === 200) return inst;
      } catch {
        // not ready yet
      }
    if (Date.now() > deadline) {
      await inst.kill();
      throw new Error(`spyglass serve not ready within ${readyWithinMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
