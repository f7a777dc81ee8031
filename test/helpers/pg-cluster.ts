import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.ts';

const run = promisify(execFile);

/** The directory holding initdb/pg_ctl, or null when no PostgreSQL server is installed. */
export function findPgBin(): string | null {
  if (process.env.PG_BIN && existsSync(join(process.env.PG_BIN, 'pg_ctl')))
    return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : null;
}

export interface PgCluster {
  /** postgres://…/postgres as the superuser; use createDatabase for a fresh database. */
  adminUrl: string;
  port: number;
  dataDir: string;
  /** True when `dir` held a cluster already (started as it was, not created). */
  existed: boolean;
  createDatabase(name?: string): Promise<string>;
  /** A fast shutdown, then a start; `whileDown` runs between them. */
  restart(whileDown?: () => Promise<unknown>): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A throwaway PostgreSQL cluster in a temp directory on a loopback port, tuned for tests
 * (fsync stays on: durability tests rely on it). Runs as the current user; root uses `postgres`.
 * With `dir`, the cluster lives there instead and outlives the run (bench/kept-cluster.ts): created
 * when the directory holds none, else started as it is; stop() leaves the directory.
 */
export async function startPgCluster(opts: { dir?: string } = {}): Promise<PgCluster> {
  const bin = findPgBin();
  if (!bin) throw new Error('no PostgreSQL server found (apt-get install postgresql)');
  const dataDir = opts.dir ? resolve(opts.dir) : mkdtempSync(join(tmpdir(), 'spyglass-pg-'));
  const existed = opts.dir !== undefined && existsSync(join(dataDir, 'PG_VERSION'));
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  const exec = async (cmd: string, args: string[]) => {
    if (asRoot) return run('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]);
    return run(join(bin, cmd), args);
  };
  if (!existed) {
    mkdirSync(dataDir, { recursive: true });
    if (asRoot) await run('chown', ['postgres:postgres', dataDir]);
    await exec('initdb', [
      '-D',
      dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-locale',
    ]);
  }
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dataDir} -c max_connections=200 -c shared_buffers=256MB -c synchronous_commit=on`;
  const start = () =>
    exec('pg_ctl', [
      '-D',
      dataDir,
      '-o',
      options,
      '-l',
      join(dataDir, 'server.log'),
      '-w',
      'start',
    ]);
  await start();
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let counter = 0;
  return {
    adminUrl,
    port,
    dataDir,
    existed,
    async createDatabase(name = `spyglass_${process.pid}_${Date.now()}_${counter++}`) {
      await psql(bin, port, `create database "${name}"`);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async restart(whileDown) {
      await exec('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
      await whileDown?.();
      await start();
    },
    async stop() {
      if (opts.dir) {
        await exec('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']).catch(() => undefined);
        return;
      }
      await exec('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function psql(bin: string, port: number, command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      join(bin, 'psql'),
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-U',
        'postgres',
        '-d',
        'postgres',
        '-v',
        'ON_ERROR_STOP=1',
        '-c',
        command,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`psql failed: ${err}`))));
  });
}
