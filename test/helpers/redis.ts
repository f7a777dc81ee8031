import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from './free-port.ts';

/** The redis-server binary (REDIS_SERVER, else the PATH), or null when Redis is not installed. */
export function findRedisServer(): string | null {
  if (process.env.REDIS_SERVER && existsSync(process.env.REDIS_SERVER))
    return process.env.REDIS_SERVER;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'redis-server');
    if (dir && existsSync(candidate)) return candidate;
  }
  return null;
}

export interface RedisServer {
  /** redis://127.0.0.1:<port> */
  url: string;
  port: number;
  /** The redis-server process (a test may SIGSTOP it to stand for a Redis that stopped answering). */
  pid: number;
  stop(): Promise<void>;
}

/**
 * A throwaway redis-server on a free loopback port, with no persistence and its working directory
 * in a temp dir. Resolves once it answers PING. `port` restarts one on the port of a stopped one
 * (empty, like a Redis restarted without persistence).
 */
export async function startRedis(port?: number): Promise<RedisServer> {
  const bin = findRedisServer();
  if (!bin) throw new Error('no redis-server found (apt-get install redis-server)');
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-redis-'));
  port ??= await freePort();
  const child = spawn(
    bin,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let log = '';
  child.stdout?.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPong(port, child);
  } catch (err) {
    await stop();
    throw new Error(`redis-server did not start: ${(err as Error).message}\n${log}`, {
      cause: err,
    });
  }
  return { url: `redis://127.0.0.1:${port}`, port, pid: child.pid ?? 0, stop };
}

/** Sends PING until the server answers +PONG: at most 100 tries, 50 ms apart. */
async function waitForPong(port: number, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`);
    if (await ping(port)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no PONG within 5 s');
}

export function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d: Buffer) => {
      answer += d.toString();
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
  });
}
