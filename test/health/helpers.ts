import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import type { LiveEvent } from '../../src/live/bus.ts';
import type { EventBus } from '../../src/live/bus.ts';
import { freePort } from '../helpers/free-port.ts';
import { fixtureArgs } from '../helpers/fixture-scripts.ts';

export const EVERYTHING = fileURLToPath(
  new URL(
    '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
    import.meta.url,
  ),
);
const LOOPBACK = fileURLToPath(new URL('../fixtures/mcp/loopback.mjs', import.meta.url));

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'spyglass-health-'));
}

/** Writes spyglass.yaml (servers use the YAML keys of docs/health.md#configuring-servers) and returns its path. */
export function writeConfig(dir: string, doc: Record<string, unknown>): string {
  const path = join(dir, 'spyglass.yaml');
  writeFileSync(path, stringify(doc));
  return path;
}

export function writeTools(path: string, tools: unknown[], instructions?: string): void {
  writeFileSync(path, JSON.stringify({ tools, ...(instructions ? { instructions } : {}) }));
}

/** A servers[] entry running test/fixtures/mcp/stdio-server.ts in the given mode. */
export function stdioFixture(
  name: string,
  mode: string,
  extra: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Record<string, unknown> {
  return {
    name,
    transport: 'stdio',
    command: process.execPath,
    args: fixtureArgs('stdio-server'),
    env: { FIXTURE_MODE: mode, ...env },
    ...extra,
  };
}

export interface Everything {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** server-everything over sse or streamableHttp on a free loopback port. */
export async function startEverything(mode: 'sse' | 'streamableHttp'): Promise<Everything> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', LOOPBACK, EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const onData = (d: Buffer) => {
      seen += String(d);
      if (/listening on port|running on port/i.test(seen)) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`server-everything ${mode} exited (${code}): ${seen}`)),
    );
  });
  return {
    url: `http://127.0.0.1:${port}${mode === 'sse' ? '/sse' : '/mcp'}`,
    pid: child.pid as number,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Live processes whose parent is this process. */
export function childPids(): number[] {
  return allProcesses()
    .filter((p) => p.ppid === process.pid)
    .map((p) => p.pid);
}

/** Live processes whose command line contains `marker` (catches orphans reparented away from us). */
export function processesWith(marker: string): number[] {
  return allProcesses()
    .filter((p) => p.cmdline.includes(marker))
    .map((p) => p.pid);
}

function allProcesses(): { pid: number; ppid: number; cmdline: string }[] {
  const out: { pid: number; ppid: number; cmdline: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the parenthesised command: state ppid ...
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (rest[0] === 'Z') continue;
      out.push({
        pid: Number(entry),
        ppid: Number(rest[1]),
        cmdline: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' '),
      });
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/**
 * This process's open sockets and pipes: what a check leaves open if it leaks a connection or a
 * child's stdio. Files are left out: the embedded database opens one now and then by itself (a new
 * WAL segment, a relation's first statistics), which a plain descriptor count took for a leak.
 */
export function socketCount(): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (/^(socket|pipe):/.test(readlinkSync(`/proc/self/fd/${fd}`))) n++;
    } catch {
      // closed between the listing and the read
    }
  }
  return n;
}

/** Resolves with the first `count` events matching `pred` (no sleeping: the bus tells us). */
export function collectEvents(
  bus: EventBus,
  pred: (e: LiveEvent) => boolean,
  count: number,
): Promise<LiveEvent[]> {
  const seen: LiveEvent[] = [];
  return new Promise((resolve) => {
    const off = bus.subscribe((e) => {
      if (!pred(e)) return;
      seen.push(e);
      if (seen.length === count) {
        off();
        resolve(seen);
      }
    });
  });
}

export interface FixtureProcess {
  url: string;
  pid: number;
  /** Requests still open at the fixture's /hang endpoints. */
  hanging(): Promise<number>;
  stop(): Promise<void>;
}

/** test/fixtures/mcp/fixture-process.ts: the HTTP fixtures on another core than the checker. */
export async function startFixtureProcess(toolsDir?: string): Promise<FixtureProcess> {
  const child = spawn(
    process.execPath,
    [...fixtureArgs('fixture-process'), ...(toolsDir ? [toolsDir] : [])],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += String(d);
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`fixture process exited (${code})`)));
  });
  return {
    url,
    pid: child.pid as number,
    hanging: async () =>
      ((await (await fetch(`${url}/_stats`)).json()) as { hanging: number }).hanging,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}
