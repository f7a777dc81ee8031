/**
 * A PostgreSQL cluster whose data directory outlives the run (bench/read-path.ts --data-dir): the
 * first run creates it and loads the spans, later runs start it on the loaded data and only read.
 * The cluster is stopped at the end of every run; the directory stays until removed by hand.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { findPgBin } from '../test/helpers/pg-cluster.ts';
import { freePort } from '../test/helpers/free-port.ts';

const run = promisify(execFile);

export interface KeptCluster {
  url: string;
  dataDir: string;
  /** False: the directory was created by this run (the database is empty). */
  existed: boolean;
  stop(): Promise<void>;
}

/** Starts the cluster in `dir` (creating it when absent) and returns database `name`'s URL. */
export async function startKeptCluster(dir: string, name: string): Promise<KeptCluster> {
  const bin = findPgBin();
  if (!bin) throw new Error('no PostgreSQL server found (apt-get install postgresql)');
  const dataDir = resolve(dir);
  const existed = existsSync(join(dataDir, 'PG_VERSION'));
  const asRoot = process.getuid?.() === 0;
  const exec = (cmd: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args])
      : run(join(bin, cmd), args);
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
  const port = await freePort();
  // The same settings as test/helpers/pg-cluster.ts (the other read benches' clusters).
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dataDir} -c max_connections=200 -c shared_buffers=256MB -c synchronous_commit=on`;
  await exec('pg_ctl', [
    '-D',
    dataDir,
    '-o',
    options,
    '-l',
    join(dataDir, 'server.log'),
    '-w',
    'start',
  ]);
  const stop = async () => {
    await exec('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']).catch(() => undefined);
  };
  try {
    if (!existed)
      await exec('psql', [
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
        `create database "${name}"`,
      ]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/${name}`, dataDir, existed, stop };
}
