import { execFile, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.ts';
import { processAlive } from './process-alive.ts';

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
  const asRoot = process.getuid?.() === 0;
  const exec = async (cmd: string, args: string[]) => {
    if (asRoot) return run('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]);
    return run(join(bin, cmd), args);
  };
  const initdb = async (dir: string) => {
    mkdirSync(dir, { recursive: true });
    if (asRoot) await run('chown', ['postgres:postgres', dir]);
    await exec('initdb', [
      '-D',
      dir,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-locale',
    ]);
  };
  if (opts.dir) {
    if (!existed) await initdb(dataDir);
  } else {
    await sweepOrphans(exec);
    // A throwaway cluster starts from a copy of one initdb made once per PostgreSQL version.
    rmSync(dataDir, { recursive: true, force: true });
    await run('cp', ['-a', await initdbCopy(bin, initdb), dataDir]);
    writeFileSync(join(dataDir, OWNER_FILE), String(process.pid));
  }
  const options = (p: number) =>
    `-c listen_addresses=127.0.0.1 -p ${p} -k ${dataDir} -c max_connections=200 -c shared_buffers=256MB -c synchronous_commit=on`;
  const logFile = join(dataDir, 'server.log');
  const start = async (p: number) => {
    const logged = existsSync(logFile) ? readFileSync(logFile, 'utf8').length : 0;
    try {
      await exec('pg_ctl', ['-D', dataDir, '-o', options(p), '-l', logFile, '-w', 'start']);
    } catch (err) {
      // pg_ctl says only "could not start server; examine the log output": the log says why.
      const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(logged).trim() : '';
      throw Object.assign(new Error(`${(err as Error).message}\nserver.log:\n${log}`), {
        portTaken: /could not bind|could not create any TCP\/IP sockets/.test(log),
      });
    }
  };
  // A port taken between freePort() and the bind (by another test worker's listener) gets another.
  let port = await freePort();
  for (let attempt = 1; ; attempt++) {
    try {
      await start(port);
      break;
    } catch (err) {
      if (!(err as { portTaken?: boolean }).portTaken || attempt === 3) throw err;
      port = await freePort();
    }
  }
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
      await start(port);
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

/** In a throwaway cluster's directory: the pid of the process that started it. */
const OWNER_FILE = 'spyglass-owner.pid';

/**
 * Stops and removes the throwaway clusters in the temp dir whose starting process is gone: a test
 * run or bench killed before its teardown (a bench's `timeout`, a second Ctrl-C) otherwise leaves
 * a postmaster running with its 256 MB of shared buffers until the machine restarts. Clusters in
 * a run's RAM temp dir (test/helpers/ram-tmp.ts) go with that directory; these are the ones made
 * in the system's temp dir (benches, `SPYGLASS_TEST_TMPFS=0`). A directory without an owner file
 * (another version's, or one being made) is left alone.
 */
async function sweepOrphans(exec: (cmd: string, args: string[]) => Promise<unknown>) {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith('spyglass-pg-') || name.startsWith('spyglass-pg-initdb-')) continue;
    const dir = join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
    } catch {
      continue;
    }
    if (!Number.isInteger(owner) || owner <= 0 || processAlive(owner)) continue;
    await exec('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * An initdb'd data directory, made on first use and kept beside the packages
 * (node_modules/.cache/spyglass-pg-initdb-<version>) for the throwaway clusters to copy: initdb
 * is 1.3-1.4 s of CPU and, on a loaded 2-core machine, up to 12 s of wall time at the start of
 * every run (the shared cluster, test/global-setup.ts) and in test files that start a private
 * cluster; the copy (`cp -a`, owner and modes kept) is 0.1 s of CPU. The copy is made before the
 * server first starts on it, so each cluster still starts as a fresh initdb would leave it.
 */
async function initdbCopy(bin: string, initdb: (dir: string) => Promise<unknown>): Promise<string> {
  const cacheDir = join(import.meta.dirname, '../../node_modules/.cache');
  const cached = join(cacheDir, `spyglass-pg-initdb-${bin.split('/').at(-2) ?? 'pg'}`);
  if (existsSync(join(cached, 'PG_VERSION'))) return cached;
  mkdirSync(cacheDir, { recursive: true });
  // Made where the clusters are (the postgres user can reach it), then copied in and renamed.
  const made = mkdtempSync(join(tmpdir(), 'spyglass-pg-initdb-'));
  const partial = `${cached}.partial-${process.pid}`;
  try {
    await initdb(made);
    await run('cp', ['-a', made, partial]);
    // Two runs starting at once may both make it: the first rename wins, the other's is dropped.
    try {
      renameSync(partial, cached);
    } catch (err) {
      if (!existsSync(join(cached, 'PG_VERSION'))) throw err;
    }
  } finally {
    rmSync(made, { recursive: true, force: true });
    rmSync(partial, { recursive: true, force: true });
  }
  return cached;
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
